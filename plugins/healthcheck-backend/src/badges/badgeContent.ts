import { parseEntityRef } from '@backstage/catalog-model';
import {
  EnvironmentRollup,
  HealthStatus,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import { BadgePercentile, BadgeWindow } from './badgeRequest';

/**
 * The shields.io named colours a badge uses.
 * @internal
 */
export type BadgeColor =
  | 'brightgreen'
  | 'green'
  | 'yellowgreen'
  | 'yellow'
  | 'orange'
  | 'red'
  | 'lightgrey'
  | 'grey';

/**
 * What a badge says. The message always carries the meaning in words or
 * numbers; the colour only repeats it.
 * @internal
 */
export interface BadgeContent {
  label: string;
  message: string;
  color: BadgeColor;
}

/**
 * The colour of each status.
 * @internal
 */
export const STATUS_COLORS: Readonly<Record<HealthStatus, BadgeColor>> = {
  healthy: 'brightgreen',
  degraded: 'yellow',
  unhealthy: 'red',
  unknown: 'lightgrey',
  paused: 'grey',
};

/** What a badge says when there is nothing measured in its window. @internal */
export const NO_DATA_MESSAGE = 'no data';

/**
 * Who a badge is about: the system's name (with its namespace unless that is
 * `default`), then the environment, if any: `payments`,
 * `payments production`, `team-a/payments staging`.
 * @internal
 */
export function badgeSubject(systemRef: string, environment?: string): string {
  const { namespace, name } = parseEntityRef(systemRef, {
    defaultKind: 'system',
  });
  const system = namespace === 'default' ? name : `${namespace}/${name}`;
  return environment ? `${system} ${environment}` : system;
}

/**
 * The message of a status: the word, and for `degraded` and `unhealthy` how
 * many of the slices (not paused) are healthy: `degraded, 4/5 ok`.
 * @internal
 */
export function statusMessage(
  status: HealthStatus,
  counts?: { healthy: number; total: number },
): string {
  if (
    (status === 'degraded' || status === 'unhealthy') &&
    counts &&
    counts.total > 0
  ) {
    return `${status}, ${counts.healthy}/${counts.total} ok`;
  }
  return status;
}

/**
 * What a status badge adds to its message when its rollup is the last one
 * read (the database cannot be read): the status may have moved since.
 * @internal
 */
export const STALE_SUFFIX = ' (stale)';

/**
 * What a status badge adds to its message while a maintenance window is in
 * force over it. The colour stays the status's: an outage in maintenance is
 * still red, and says why nobody was paged.
 * @internal
 */
export const MAINTENANCE_SUFFIX = ' · maintenance';

/**
 * A status badge of a system, or of one of its environments;
 * `inMaintenance` when a maintenance window is in force over it now.
 * @internal
 */
export function statusBadge(
  rollup: SystemRollup,
  environment?: EnvironmentRollup,
  inMaintenance = false,
): BadgeContent {
  const of = environment ?? rollup;
  return {
    label: badgeSubject(rollup.systemRef, environment?.name),
    message: `${statusMessage(of.status, of)}${
      inMaintenance ? MAINTENANCE_SUFFIX : ''
    }${rollup.stale ? STALE_SUFFIX : ''}`,
    color: STATUS_COLORS[of.status],
  };
}

/**
 * A target as a percentage, as precise as it was declared: `99.9%`,
 * `99.95%`, `95%`.
 * @internal
 */
export function formatTarget(target: number): string {
  return `${Number((target * 100).toFixed(4))}%`;
}

/**
 * The colour of the error budget left (a share of the budget): at least
 * half brightgreen, a quarter green, a tenth yellow, any orange, none or
 * overspent red; lightgrey without a budget.
 * @internal
 */
export function budgetColor(remainingRatio: number | null): BadgeColor {
  if (remainingRatio === null || !Number.isFinite(remainingRatio)) {
    return 'lightgrey';
  }
  if (remainingRatio >= 0.5) {
    return 'brightgreen';
  }
  if (remainingRatio >= 0.25) {
    return 'green';
  }
  if (remainingRatio >= 0.1) {
    return 'yellow';
  }
  return remainingRatio > 0 ? 'orange' : 'red';
}

/**
 * An SLO badge: `payments production SLO | 99.93% / 99.9%`, attainment
 * (rounded down, never up to the target) over target, coloured by the
 * error budget left.
 * @internal
 */
export function sloBadge(options: {
  systemRef: string;
  environment?: string;
  objective: {
    target: number;
    attainment: number | null;
    remainingRatio: number | null;
  };
}): BadgeContent {
  const { objective } = options;
  return {
    label: `${badgeSubject(options.systemRef, options.environment)} SLO`,
    message: `${
      objective.attainment === null
        ? NO_DATA_MESSAGE
        : formatUptime(objective.attainment)
    } / ${formatTarget(objective.target)}`,
    color: budgetColor(objective.remainingRatio),
  };
}

/**
 * Up-time in hundredths of a percent, rounded down (so 99.999% is never
 * shown as 100%), clamped to 0..10000; `undefined` when not a number.
 */
function uptimeHundredths(fraction: number | undefined): number | undefined {
  if (fraction === undefined || !Number.isFinite(fraction)) {
    return undefined;
  }
  const clamped = Math.min(1, Math.max(0, fraction));
  // The epsilon keeps 0.999 (99.89999...) from becoming 99.89.
  return Math.floor(clamped * 10000 + 1e-6);
}

/**
 * Up-time as a percentage with at most two decimals, rounded down:
 * `100%`, `99.95%`, `87.5%`; `no data` without a value.
 * @internal
 */
export function formatUptime(fraction: number | undefined): string {
  const hundredths = uptimeHundredths(fraction);
  if (hundredths === undefined) {
    return NO_DATA_MESSAGE;
  }
  return `${(hundredths / 100).toFixed(2).replace(/\.?0+$/, '')}%`;
}

/**
 * The colour of an up-time (of the percentage shown): at least 99.9%
 * brightgreen, 99% green, 95% yellow, else red; lightgrey without a value.
 * @internal
 */
export function uptimeColor(fraction: number | undefined): BadgeColor {
  const hundredths = uptimeHundredths(fraction);
  if (hundredths === undefined) {
    return 'lightgrey';
  }
  if (hundredths >= 9990) {
    return 'brightgreen';
  }
  if (hundredths >= 9900) {
    return 'green';
  }
  if (hundredths >= 9500) {
    return 'yellow';
  }
  return 'red';
}

/**
 * An up-time badge: `payments production uptime 7d | 99.95%`.
 * @internal
 */
export function uptimeBadge(options: {
  systemRef: string;
  environment?: string;
  window: BadgeWindow;
  /** Fraction 0..1 of the window the target was up; undefined without data. */
  uptime: number | undefined;
}): BadgeContent {
  return {
    label: `${badgeSubject(options.systemRef, options.environment)} uptime ${
      options.window
    }`,
    message: formatUptime(options.uptime),
    color: uptimeColor(options.uptime),
  };
}

function isDuration(ms: number | undefined): ms is number {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0;
}

/**
 * A duration the way people read response times: `87 ms`, `1.2 s`,
 * `14.5 s`, `120 s`; `no data` without a value.
 * @internal
 */
export function formatResponseTime(ms: number | undefined): string {
  if (!isDuration(ms)) {
    return NO_DATA_MESSAGE;
  }
  const rounded = Math.round(ms);
  if (rounded < 1000) {
    return `${rounded} ms`;
  }
  const seconds = ms / 1000;
  let text: string;
  if (seconds < 9.995) {
    text = seconds.toFixed(2);
  } else if (seconds < 99.95) {
    text = seconds.toFixed(1);
  } else {
    text = seconds.toFixed(0);
  }
  return `${text.includes('.') ? text.replace(/\.?0+$/, '') : text} s`;
}

/**
 * The colour of a response time: up to 200 ms brightgreen, 500 ms green,
 * 1 s yellow, 2 s orange, else red; lightgrey without a value.
 * @internal
 */
export function responseTimeColor(ms: number | undefined): BadgeColor {
  if (!isDuration(ms)) {
    return 'lightgrey';
  }
  if (ms <= 200) {
    return 'brightgreen';
  }
  if (ms <= 500) {
    return 'green';
  }
  if (ms <= 1000) {
    return 'yellow';
  }
  if (ms <= 2000) {
    return 'orange';
  }
  return 'red';
}

/**
 * Response-time percentiles over a window, in ms.
 * @internal
 */
export interface ResponseTimes {
  p50: number;
  p95: number;
}

/**
 * A response-time badge: `payments response time 24h | p95 230 ms`. The
 * message names the percentile, so a reader never takes a p95 for an average.
 * @internal
 */
export function responseTimeBadge(options: {
  systemRef: string;
  environment?: string;
  window: BadgeWindow;
  percentile: BadgePercentile;
  responseTimes: ResponseTimes | undefined;
}): BadgeContent {
  const ms = options.responseTimes?.[options.percentile];
  const label = `${badgeSubject(
    options.systemRef,
    options.environment,
  )} response time ${options.window}`;
  if (!isDuration(ms)) {
    return { label, message: NO_DATA_MESSAGE, color: 'lightgrey' };
  }
  return {
    label,
    message: `${options.percentile} ${formatResponseTime(ms)}`,
    color: responseTimeColor(ms),
  };
}
