import type { ProbeErrorKind } from '@vigil/plugin-healthcheck-node';
import { isSlowTransportFailure, type RecordedRun } from './classifySlice';
import type { AdmissionOptions } from './options';

/**
 * What the bulkhead remembers of one endpoint (scheme, host and port), across
 * all the slices that probe it.
 *
 * @internal
 */
export interface EndpointHistory {
  /**
   * Slow transport failures in a row on this endpoint, in the order the runs
   * finished, from slices that were not already suspect on their own.
   */
  readonly slowFailureStreak: number;
}

/** @internal */
export const EMPTY_ENDPOINT_HISTORY: EndpointHistory = Object.freeze({
  slowFailureStreak: 0,
});

/** @internal */
export interface EndpointClassification {
  /** The endpoint's last K counted runs were all slow transport failures. */
  readonly suspect: boolean;
  readonly slowFailureStreak: number;
}

/**
 * Refusals decided before any connection: they say nothing about whether the
 * endpoint answers, so they neither extend nor end its streak.
 */
const NOT_ABOUT_THE_ENDPOINT: ReadonlySet<ProbeErrorKind> = new Set([
  'guard',
  'config',
]);

/**
 * The endpoint's history after one more finished run of one of its slices.
 *
 * - A slow transport failure (judged against the timeout that run had)
 *   extends the streak, unless the slice was already suspect on its own
 *   runs: a path that hangs on an otherwise healthy host is the per-slice
 *   rule's business, and letting it keep the host's streak going would gate
 *   the host's healthy slices.
 * - Any other run that reached the endpoint (a pass, a degraded run, a quick
 *   failure such as a 503 or a refused connection) ends the streak: the
 *   endpoint answers, or at least does not hold slots.
 * - A run refused before connecting (`guard`, `config`) changes nothing.
 *
 * @internal
 */
export function recordEndpointRun(
  history: EndpointHistory,
  run: RecordedRun,
  context: {
    /** Whether the run's slice was suspect on its own runs before this one. */
    readonly sliceAlreadySuspect: boolean;
    readonly slowFraction: number;
  },
): EndpointHistory {
  if (
    run.errorKind !== undefined &&
    NOT_ABOUT_THE_ENDPOINT.has(run.errorKind)
  ) {
    return history;
  }
  if (!isSlowTransportFailure(run, context.slowFraction)) {
    return history.slowFailureStreak === 0 ? history : EMPTY_ENDPOINT_HISTORY;
  }
  if (context.sliceAlreadySuspect) {
    return history;
  }
  return { slowFailureStreak: history.slowFailureStreak + 1 };
}

/**
 * Reads an endpoint's history: it is suspect after K slow transport failures
 * in a row, whichever of its slices they came from.
 *
 * @internal
 */
export function classifyEndpoint(
  history: EndpointHistory,
  options: Pick<AdmissionOptions, 'suspectAfterRuns'>,
): EndpointClassification {
  return {
    suspect: history.slowFailureStreak >= options.suspectAfterRuns,
    slowFailureStreak: history.slowFailureStreak,
  };
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
};

/**
 * The endpoint a target reaches, as `scheme://host:port` (lower case host,
 * the scheme's default port filled in), so `http://api:80/a` and
 * `http://API/b` share one. A target that is not a URL with a host (a DNS
 * name, `host:port` of a TCP check) is its own key.
 *
 * @internal
 */
export function endpointKeyOf(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return target;
  }
  if (url.hostname === '') {
    // `localhost:5432` parses as scheme `localhost:` with an opaque path.
    return target;
  }
  const port = url.port || DEFAULT_PORTS[url.protocol] || '';
  return `${url.protocol}//${url.hostname}${port ? `:${port}` : ''}`;
}
