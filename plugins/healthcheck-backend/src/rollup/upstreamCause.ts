import type {
  HealthStatus,
  RollupReason,
  SystemRollup,
  UpstreamProblem,
} from '@vigil/plugin-healthcheck-common';
import {
  componentsOfFailingChecks,
  UpstreamAttribution,
  upstreamCauses,
} from './buildNotification';

/** What an environment's outage is put down to upstream. @internal */
export interface UpstreamExplanation {
  /** The upstream systems unhealthy in the environment. */
  unhealthy: UpstreamProblem[];
  /** The systems of the components the failing checks target, where asked. */
  systemOfComponent: Map<string, string>;
  /** The one that explains it, the longest failing, with since when. */
  cause?: { systemRef: string; since: number };
}

/**
 * Which upstream system explains an environment's outage: of the systems
 * it depends on, those unhealthy in the same environment (by their stored
 * status, or as a whole when they lack the environment), judged by
 * {@link upstreamCauses}; the one failing longest is the cause. Asks the
 * catalog for the systems of the targeted components only when an
 * unhealthy upstream makes the answer matter.
 * @internal
 */
export async function explainUpstream(options: {
  environment: string;
  reasons: readonly RollupReason[];
  upstreamRefs: readonly string[];
  /** Stored environment statuses of the upstream systems, by system. */
  readStates: (
    systemRefs: readonly string[],
  ) => Promise<
    Map<string, Map<string, { status: HealthStatus; since: number }>>
  >;
  readRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  systemsOfComponents: (
    componentRefs: readonly string[],
  ) => Promise<Map<string, string>>;
  attribution: UpstreamAttribution;
}): Promise<UpstreamExplanation> {
  const none: UpstreamExplanation = {
    unhealthy: [],
    systemOfComponent: new Map(),
  };
  if (options.upstreamRefs.length === 0) {
    return none;
  }
  const states = await options.readStates(options.upstreamRefs);
  const found = await Promise.all(
    options.upstreamRefs.map(async systemRef => {
      const own = states.get(systemRef.toLowerCase())?.get(options.environment);
      if (own) {
        return { systemRef, status: own.status, since: own.since };
      }
      const rollup = await options.readRollup(systemRef);
      return {
        systemRef,
        status: (rollup?.status ?? 'unknown') as HealthStatus,
        since: rollup ? Date.parse(rollup.since) : 0,
      };
    }),
  );
  const unhealthy = found.filter(u => u.status === 'unhealthy');
  if (unhealthy.length === 0) {
    return none;
  }
  const targeted = componentsOfFailingChecks(options.reasons);
  const systemOfComponent =
    targeted.length > 0
      ? await options.systemsOfComponents(targeted)
      : new Map<string, string>();
  const problems = unhealthy.map(u => ({
    systemRef: u.systemRef,
    status: u.status,
  }));
  const [cause] = upstreamCauses({
    reasons: options.reasons,
    upstream: problems,
    systemOfComponent,
    attribution: options.attribution,
  })
    .map(c => unhealthy.find(u => u.systemRef === c.systemRef)!)
    .sort(
      (a, b) => a.since - b.since || a.systemRef.localeCompare(b.systemRef),
    );
  return {
    unhealthy: problems,
    systemOfComponent,
    cause: cause && { systemRef: cause.systemRef, since: cause.since },
  };
}
