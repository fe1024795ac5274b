import { parseEntityRef } from '@backstage/catalog-model';
import type {
  HealthStatus,
  RollupReason,
  UpstreamProblem,
} from '@vigil/plugin-healthcheck-common';

/**
 * When an unhealthy upstream system explains an outage: `targets`, when one
 * of the environment's failing checks targets a component of that system;
 * `any`, whenever it is unhealthy.
 * @internal
 */
export type UpstreamAttribution = 'targets' | 'any';

/** @internal */
export const UPSTREAM_ATTRIBUTIONS: readonly UpstreamAttribution[] = [
  'targets',
  'any',
];

/**
 * How environment transitions become notifications, from
 * `healthcheck.notifications`.
 * @internal
 */
export interface NotificationSettings {
  /** Environments whose outages notify with `high` severity. */
  productionEnvironments: readonly string[];
  /** Say nothing when an unhealthy upstream system explains the outage. */
  suppressUpstream: boolean;
  /** When an unhealthy upstream system explains the outage. */
  upstreamAttribution: UpstreamAttribution;
  /**
   * One notification per upstream incident for a system whose outage it
   * explains, updated as the system flips, instead of one per flip.
   */
  groupUpstreamIncidents: boolean;
  /**
   * With `suppressUpstream`: how long after the upstream recovered a system
   * still unhealthy is told once.
   */
  upstreamGraceMs: number;
  /** Re-notify an environment still unhealthy this long after it was told; off when absent. */
  remindAfterMs?: number;
  /**
   * How long an outage's notification waits for the statuses of the
   * systems it depends on to settle when it has any (they fail together,
   * and the first judged is not the cause).
   */
  upstreamSettleMs: number;
}

/** @internal */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  productionEnvironments: ['production', 'prod'],
  suppressUpstream: false,
  upstreamAttribution: 'targets',
  groupUpstreamIncidents: true,
  upstreamGraceMs: 5 * 60_000,
  upstreamSettleMs: 2_000,
};

/**
 * An unhealthy upstream system that explains an outage, and the targeted
 * components of it that the failing checks probe (none under `any`, unless
 * they target some).
 * @internal
 */
export interface UpstreamCause {
  systemRef: string;
  components: string[];
}

/**
 * The components the failing (unhealthy) checks of an environment target:
 * canonical refs, each once, sorted. What {@link upstreamCauses} needs the
 * systems of.
 * @internal
 */
export function componentsOfFailingChecks(
  reasons: readonly RollupReason[],
): string[] {
  const components = new Set<string>();
  for (const reason of reasons) {
    if (reason.status === 'unhealthy') {
      reason.components?.forEach(ref => components.add(ref.toLowerCase()));
    }
  }
  return [...components].sort();
}

/**
 * The unhealthy upstream systems that explain an environment's outage. Under
 * `targets`, only those that own a component one of the failing checks
 * targets: a system that is merely upstream says nothing about a check that
 * never touches it. Under `any`, every unhealthy upstream system. Pure; the
 * caller looks up which system each targeted component belongs to.
 * @internal
 */
export function upstreamCauses(input: {
  /** The environment's reasons; only the unhealthy ones count. */
  reasons: readonly RollupReason[];
  upstream: readonly UpstreamProblem[];
  /** Canonical component ref -> canonical ref of the system it belongs to. */
  systemOfComponent: ReadonlyMap<string, string>;
  attribution: UpstreamAttribution;
}): UpstreamCause[] {
  const targetedBySystem = new Map<string, string[]>();
  for (const component of componentsOfFailingChecks(input.reasons)) {
    const system = input.systemOfComponent.get(component);
    if (system) {
      const list = targetedBySystem.get(system.toLowerCase()) ?? [];
      list.push(component);
      targetedBySystem.set(system.toLowerCase(), list);
    }
  }
  return input.upstream
    .filter(u => u.status === 'unhealthy')
    .flatMap(u => {
      const components = targetedBySystem.get(u.systemRef.toLowerCase());
      if (components) {
        return [{ systemRef: u.systemRef, components }];
      }
      return input.attribution === 'any'
        ? [{ systemRef: u.systemRef, components: [] }]
        : [];
    });
}

/**
 * One notification to the owner of a system.
 * @internal
 */
export interface EnvironmentNotification {
  /** The system; Backstage's notifications service resolves its owner. */
  entityRef: string;
  payload: {
    title: string;
    description: string;
    link: string;
    severity: 'high' | 'normal' | 'low';
    topic: string;
    /**
     * One per transition of a (system, environment): a delivery repeated
     * after a failure or a lost lease updates the notification the owner
     * has instead of adding another.
     */
    scope: string;
  };
}

/**
 * The notification an environment's transition calls for, if any: one on
 * becoming unhealthy, one on recovering from it, none for anything else
 * (first runs, degradations, pauses). When unhealthy systems it depends on
 * explain the outage (see {@link upstreamCauses}), it says so, or stays
 * silent if configured to.
 * @internal
 */
export function buildEnvironmentNotification(
  change: {
    systemRef: string;
    environment: string;
    from: HealthStatus;
    to: HealthStatus;
    /** When the transition was made (ISO 8601): its time names the notification. */
    at: string;
    /** The environment's failing checks, as the rollup lists them. */
    reasons: readonly RollupReason[];
    upstream: readonly UpstreamProblem[];
    /** The system of each component the failing checks target, where known. */
    systemOfComponent?: ReadonlyMap<string, string>;
    /**
     * The scope to tell it in, when not the transition's own: the upstream
     * incident's, or the outage's that a recovery ends.
     */
    scope?: string;
  },
  settings: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS,
): EnvironmentNotification | undefined {
  const becameUnhealthy =
    change.to === 'unhealthy' && change.from !== 'unhealthy';
  const recovered =
    change.from === 'unhealthy' &&
    (change.to === 'healthy' || change.to === 'degraded');
  if (!becameUnhealthy && !recovered) {
    return undefined;
  }
  const upstream = upstreamCauses({
    reasons: change.reasons,
    upstream: change.upstream,
    systemOfComponent: change.systemOfComponent ?? new Map(),
    attribution: settings.upstreamAttribution,
  });
  if (becameUnhealthy && upstream.length > 0 && settings.suppressUpstream) {
    return undefined;
  }
  const { name } = parseEntityRef(change.systemRef);
  const production = settings.productionEnvironments.some(
    env => env.toLowerCase() === change.environment.toLowerCase(),
  );
  const where = `${name} in ${change.environment}`;
  let description: string;
  if (becameUnhealthy) {
    const failing = change.reasons
      .filter(r => r.status === 'unhealthy')
      .map(r => `${r.checkId}: ${r.display}`);
    description = [
      failing.length > 0 ? `Failing: ${failing.join('; ')}.` : '',
      upstream.length > 0
        ? `Probably upstream: ${upstream.map(describeCause).join(', ')} ${
            upstream.length === 1 ? 'is' : 'are'
          } unhealthy.`
        : '',
    ]
      .filter(Boolean)
      .join(' ');
  } else {
    description = `${where} is ${change.to} again.`;
  }
  return {
    entityRef: change.systemRef,
    payload: {
      title: becameUnhealthy
        ? `${where} is unhealthy${upstream.length > 0 ? ' (upstream)' : ''}`
        : `${where} recovered`,
      description,
      // An outage put down to an upstream system links to where it is fixed.
      link: healthTabOf(
        becameUnhealthy && upstream.length > 0
          ? upstream[0].systemRef
          : change.systemRef,
      ),
      severity: severityOf(becameUnhealthy, production),
      topic: 'healthcheck',
      scope:
        change.scope ??
        transitionScope(change.systemRef, change.environment, change.at),
    },
  };
}

/**
 * The scope of the notification of one transition of an environment:
 * `healthcheck:<system ref>:<environment>:<epoch ms of the transition>`.
 * @internal
 */
export function transitionScope(
  systemRef: string,
  environment: string,
  at: string,
): string {
  return `healthcheck:${systemRef.toLowerCase()}:${environment}:${Date.parse(
    at,
  )}`;
}

/**
 * The scope of the one notification an environment's owner gets for an
 * upstream incident, however often the environment flips during it:
 * `healthcheck:<system ref>:<environment>:upstream:<upstream ref>:<epoch ms
 * the upstream began to fail>`.
 * @internal
 */
export function upstreamIncidentScope(
  systemRef: string,
  environment: string,
  incident: { systemRef: string; since: number },
): string {
  return `healthcheck:${systemRef.toLowerCase()}:${environment}:upstream:${incident.systemRef.toLowerCase()}:${
    incident.since
  }`;
}

/** The Health tab of a system, as a link inside Backstage. @internal */
export function healthTabOf(systemRef: string): string {
  const { namespace, name } = parseEntityRef(systemRef);
  return `/catalog/${namespace}/system/${name}/health`;
}

/** `system:default/payments (through component:default/payments-service)`. */
function describeCause(cause: UpstreamCause): string {
  return cause.components.length > 0
    ? `${cause.systemRef} (through ${cause.components.join(', ')})`
    : cause.systemRef;
}

function severityOf(
  becameUnhealthy: boolean,
  production: boolean,
): EnvironmentNotification['payload']['severity'] {
  if (!becameUnhealthy) {
    return 'low';
  }
  return production ? 'high' : 'normal';
}
