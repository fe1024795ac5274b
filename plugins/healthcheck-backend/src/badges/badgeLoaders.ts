import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import { LRUCache } from 'lru-cache';
import type { HistoryStore } from '../history';
import type { ResponseTimes } from './badgeContent';
import type { BadgeMeasurementQuery, BadgeRouterOptions } from './badgeRouter';

/**
 * How long an up-time or response-time badge's figure is reused. Over a
 * window of a day or more, a minute moves the figure by a rounding digit at
 * most, and computing it reads hundreds of hourly rows.
 */
export const BADGE_MEASUREMENT_TTL_MS = 60_000;

/**
 * How old a figure may be and still be shown while a newer one is read: a
 * badge polled steadily never waits for the history, and one asked for
 * after a long quiet spell does not show a stale figure.
 */
export const BADGE_MEASUREMENT_MAX_STALE_MS = 5 * 60_000;

/** Figures remembered: three windows of two kinds for thousands of systems. */
const MEASUREMENTS_REMEMBERED = 20_000;

type Measurement = (
  | { kind: 'uptime'; uptime: number | undefined }
  | { kind: 'response-time'; times: ResponseTimes | undefined }
) & {
  /** When it was read. */
  at: number;
};

/**
 * What badges show, from the rollups and the run history. Up-time and
 * response-time figures are remembered for {@link BADGE_MEASUREMENT_TTL_MS}
 * per system, environment and window length, then shown while a newer one
 * is read, up to {@link BADGE_MEASUREMENT_MAX_STALE_MS}; concurrent
 * requests for one figure share one read.
 * @internal
 */
export function badgeLoaders(deps: {
  loadRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  history: Pick<HistoryStore, 'uptime' | 'responseTime'>;
  /** The clock of the remembered figures' ages; tests set it. */
  now?: () => number;
}): Pick<BadgeRouterOptions, 'loadRollup' | 'loadUptime' | 'loadResponseTime'> {
  const now = deps.now ?? Date.now;
  const range = (query: BadgeMeasurementQuery) => ({
    systemRef: query.systemRef,
    environment: query.environment,
    from: query.from.getTime(),
    to: query.to.getTime(),
  });
  const measurements = new LRUCache<
    string,
    Measurement,
    { kind: Measurement['kind']; query: BadgeMeasurementQuery }
  >({
    max: MEASUREMENTS_REMEMBERED,
    ttl: BADGE_MEASUREMENT_TTL_MS,
    // A given clock is read every time (lru-cache would reuse a reading for
    // a millisecond of real time, which a test's clock does not advance).
    ...(deps.now && { perf: { now: deps.now }, ttlResolution: 0 }),
    // An expired figure is answered at once while its successor is read.
    allowStale: true,
    fetchMethod: async (_key, _stale, { context }) => {
      const at = now();
      if (context.kind === 'uptime') {
        const { uptime } = await deps.history.uptime(range(context.query));
        return { kind: 'uptime', uptime, at };
      }
      const { p50Ms, p95Ms } = await deps.history.responseTime(
        range(context.query),
      );
      return {
        kind: 'response-time',
        at,
        times:
          p50Ms === undefined || p95Ms === undefined
            ? undefined
            : { p50: p50Ms, p95: p95Ms },
      };
    },
  });
  const measure = async (
    kind: Measurement['kind'],
    query: BadgeMeasurementQuery,
  ): Promise<Measurement> => {
    const key = [
      kind,
      query.systemRef,
      query.environment ?? '',
      query.to.getTime() - query.from.getTime(),
    ].join('\u0000');
    const context = { kind, query };
    const measurement = (await measurements.fetch(key, { context }))!;
    if (now() - measurement.at <= BADGE_MEASUREMENT_MAX_STALE_MS) {
      return measurement;
    }
    // Too old to show: wait for the read the first fetch started.
    return (await measurements.fetch(key, { context, allowStale: false }))!;
  };
  return {
    loadRollup: deps.loadRollup,
    loadUptime: async query => {
      const measurement = await measure('uptime', query);
      return measurement.kind === 'uptime' ? measurement.uptime : undefined;
    },
    loadResponseTime: async query => {
      const measurement = await measure('response-time', query);
      return measurement.kind === 'response-time'
        ? measurement.times
        : undefined;
    },
  };
}
