import type { LoggerService } from '@backstage/backend-plugin-api';
import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import { stableHash } from '../hashing/stableHash';
import type { ResponseTimes } from './badgeContent';
import {
  badgeTarget,
  type BadgeMeasurementQuery,
  type BadgeRouterOptions,
} from './badgeRouter';
import type { HistoryStore } from '../model';

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

/**
 * History reads for badges at once. A page of badges expires together; its
 * reads queue here rather than take every database connection from the
 * rollup reads and the run writes.
 */
export const BADGE_HISTORY_READS_AT_ONCE = 2;

/** Figures remembered: three windows of two kinds for thousands of systems. */
const MEASUREMENTS_REMEMBERED = 20_000;

/** Systems whose environments are remembered for measurement badges. */
const SYSTEMS_REMEMBERED = 20_000;

/**
 * The precision badges show up-time at: hundredths of a percent.
 */
const SHOWN_FRACTION = 1e-4;

/**
 * How long a figure over a window of `windowMs` is reused: a minute, or
 * longer for a long window, as long as the window's content moves by one
 * shown digit at most (a 30-day window: 4.3 minutes, since each second
 * replaces one second of 2.6 million), and never longer than a figure may
 * be shown while a newer one is read. Badges over long windows are what
 * dashboards poll by the thousand; each re-read sums hundreds of hours.
 * @internal
 */
export function figureReuseMs(windowMs: number): number {
  return Math.min(
    BADGE_MEASUREMENT_MAX_STALE_MS,
    Math.max(BADGE_MEASUREMENT_TTL_MS, Math.round(windowMs * SHOWN_FRACTION)),
  );
}

/**
 * The part of the reuse time a figure may be cut short by, so figures read
 * together (a page of badges, a dashboard's first load) are read again
 * spread over a quarter of a minute rather than all in the same second.
 */
export const BADGE_MEASUREMENT_TTL_SPREAD = 0.25;

/**
 * How long the figure under `key` is reused: `ttlMs` less up to
 * {@link BADGE_MEASUREMENT_TTL_SPREAD} of it, by the key's stable hash,
 * the same for a key every time, so one badge refreshes once per its own
 * period while different ones do not refresh together.
 * @internal
 */
export function spreadTtl(key: string, ttlMs: number): number {
  const fraction = stableHash(key) / 2 ** 53;
  return Math.round(ttlMs * (1 - BADGE_MEASUREMENT_TTL_SPREAD * fraction));
}

/** A value and when it was read. */
interface Dated<T> {
  value: T;
  at: number;
}

/**
 * A cache that answers a value up to `ttlMs` old as it is, one up to
 * `maxStaleMs` old at once while a newer one is read, and an older one not
 * at all (the caller waits for the newer one). Concurrent asks for one key
 * share one read. A read that fails keeps the value it was to replace, so
 * a database that stops answering for a while costs no answers until that
 * value is `maxStaleMs` old.
 */
function staleWhileRevalidate<T, C>(options: {
  max: number;
  ttlMs: number;
  maxStaleMs: number;
  now: () => number;
  /** Whether `now` is a test's clock, to be read on every access. */
  givenClock: boolean;
  /** The reuse time of one value, when not `ttlMs`. */
  ttlOf?: (context: C) => number;
  read: (key: string, context: C) => Promise<T>;
}): (key: string, context: C) => Promise<T> {
  const { now, maxStaleMs } = options;
  const cache = new LRUCache<string, Dated<T>, C>({
    max: options.max,
    ttl: options.ttlMs,
    // lru-cache would reuse a reading of the clock for a millisecond of real
    // time, which a test's clock does not advance.
    ...(options.givenClock && { perf: { now }, ttlResolution: 0 }),
    allowStale: true,
    noDeleteOnFetchRejection: true,
    fetchMethod: async (key, _stale, { context, options: setOptions }) => {
      // Read together, expiring apart (see spreadTtl).
      setOptions.ttl = spreadTtl(
        key,
        options.ttlOf?.(context) ?? options.ttlMs,
      );
      const at = now();
      return { value: await options.read(key, context), at };
    },
  });
  // lru-cache's overloads cannot tell a generic context apart; this is the
  // one with a context.
  const fetch = cache.fetch.bind(cache) as (
    key: string,
    options: { context: C; allowStale?: boolean },
  ) => Promise<Dated<T> | undefined>;
  return async (key, context) => {
    const dated = (await fetch(key, { context }))!;
    if (now() - dated.at <= maxStaleMs) {
      return dated.value;
    }
    // Too old to show: wait for the read the first fetch started.
    return (await fetch(key, { context, allowStale: false }))!.value;
  };
}

type Measurement =
  | { kind: 'uptime'; uptime: number | undefined }
  | { kind: 'response-time'; times: ResponseTimes | undefined };

/**
 * What badges show, from the rollups and the run history.
 *
 * Status badges read the rollup as the API does. Up-time and response-time
 * figures are remembered for {@link BADGE_MEASUREMENT_TTL_MS}, longer over
 * long windows (see {@link figureReuseMs}), less up to a quarter by key
 * (see {@link spreadTtl}), per system, environment
 * and window length, then shown while a newer one is read, up
 * to {@link BADGE_MEASUREMENT_MAX_STALE_MS}; at most
 * {@link BADGE_HISTORY_READS_AT_ONCE} such reads run at once. The
 * environments those badges check a request against are remembered as
 * long: a figure a minute old needs no fresher proof that its system
 * exists, and a page of badges then never waits on the database.
 * @internal
 */
export function badgeLoaders(deps: {
  logger: LoggerService;
  loadRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  history: Pick<HistoryStore, 'uptime' | 'responseTime'>;
  /** The clock of the remembered figures' ages; tests set it. */
  now?: () => number;
}): Pick<
  BadgeRouterOptions,
  'loadRollup' | 'loadEnvironments' | 'loadUptime' | 'loadResponseTime'
> {
  const now = deps.now ?? Date.now;
  const givenClock = deps.now !== undefined;
  const historyRead = pLimit(BADGE_HISTORY_READS_AT_ONCE);
  const range = (query: BadgeMeasurementQuery) => ({
    systemRef: query.systemRef,
    environment: query.environment,
    from: query.from.getTime(),
    to: query.to.getTime(),
  });

  const measure = staleWhileRevalidate<
    Measurement,
    { kind: Measurement['kind']; query: BadgeMeasurementQuery }
  >({
    max: MEASUREMENTS_REMEMBERED,
    ttlMs: BADGE_MEASUREMENT_TTL_MS,
    maxStaleMs: BADGE_MEASUREMENT_MAX_STALE_MS,
    now,
    givenClock,
    ttlOf: ({ query }) =>
      figureReuseMs(query.to.getTime() - query.from.getTime()),
    read: (_key, { kind, query }) =>
      historyRead(async (): Promise<Measurement> => {
        if (kind === 'uptime') {
          const { uptime } = await deps.history.uptime(range(query));
          return { kind, uptime };
        }
        const { p50Ms, p95Ms } = await deps.history.responseTime(range(query));
        return {
          kind,
          times:
            p50Ms === undefined || p95Ms === undefined
              ? undefined
              : { p50: p50Ms, p95: p95Ms },
        };
      }).catch(error => {
        deps.logger.warn(
          `Could not read the ${kind} of ${badgeTarget(
            query,
          )} for its badges; they show their last figure meanwhile, up to ${
            BADGE_MEASUREMENT_MAX_STALE_MS / 60_000
          } minutes old`,
          error,
        );
        throw error;
      }),
  });
  const measurementOf = (
    kind: Measurement['kind'],
    query: BadgeMeasurementQuery,
  ) =>
    measure(
      [
        kind,
        query.systemRef,
        query.environment ?? '',
        query.to.getTime() - query.from.getTime(),
      ].join('\u0000'),
      { kind, query },
    );

  const environmentsOf = staleWhileRevalidate<string[] | undefined, undefined>({
    max: SYSTEMS_REMEMBERED,
    ttlMs: BADGE_MEASUREMENT_TTL_MS,
    maxStaleMs: BADGE_MEASUREMENT_MAX_STALE_MS,
    now,
    givenClock,
    read: async systemRef =>
      (await deps.loadRollup(systemRef))?.environments.map(e => e.name),
  });

  return {
    loadRollup: deps.loadRollup,
    loadEnvironments: systemRef =>
      environmentsOf(systemRef.toLowerCase(), undefined),
    loadUptime: async query => {
      const measurement = await measurementOf('uptime', query);
      return measurement.kind === 'uptime' ? measurement.uptime : undefined;
    },
    loadResponseTime: async query => {
      const measurement = await measurementOf('response-time', query);
      return measurement.kind === 'response-time'
        ? measurement.times
        : undefined;
    },
  };
}
