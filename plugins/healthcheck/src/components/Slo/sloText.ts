import {
  ObjectiveAlert,
  ObjectiveStatus,
} from '@vigil/plugin-healthcheck-common';
import { formatUptime } from '../HealthTab/format';

const DAY_MS = 86_400_000;

/** Attainment as a percentage rounded down, never up to a target it misses: `99.93%`. */
export function formatAttainment(attainment: number | null): string {
  return attainment === null ? 'no data' : formatUptime(attainment);
}

/** A target as precisely as it was declared: `99.9%`, `99.95%`, `95%`. */
export function formatTarget(target: number): string {
  return `${Number((target * 100).toFixed(4))}%`;
}

/** The budget left as a whole percentage of the budget, `-150%` when overspent. */
export function formatBudgetLeft(remainingRatio: number | null): string {
  if (remainingRatio === null) {
    return 'no budget yet';
  }
  // Down, so 0.4% left never reads as 1%, and a hair overspent reads as -1%.
  return `${Math.floor(remainingRatio * 100)}%`;
}

/** A burn rate, `0×`, `0.5×`, `14.4×`, `120×`; an en dash where nothing counted. */
export function formatBurnRate(rate: number | null): string {
  if (rate === null) {
    return '–';
  }
  if (rate === 0) {
    return '0×';
  }
  return `${Number(rate.toFixed(rate < 10 ? 2 : 1))}×`;
}

/** What counts as good: `availability`, `p95 latency under 300 ms`. */
export function describeIndicator(
  indicator: ObjectiveStatus['indicator'],
): string {
  if (indicator.type === 'latency') {
    return `p${indicator.percentile} latency under ${indicator.thresholdMs} ms`;
  }
  return 'availability';
}

/** The window judged: `rolling 30 days`, `this calendar month`. */
export function describeWindow(window: ObjectiveStatus['window']): string {
  if (window.type === 'calendarMonth' || window.durationMs === undefined) {
    return 'this calendar month';
  }
  const days = window.durationMs / DAY_MS;
  return `rolling ${days} ${days === 1 ? 'day' : 'days'}`;
}

function amount(value: number, unit: ObjectiveStatus['status']['unit']) {
  const rounded = Math.round(value * 10) / 10;
  if (unit === 'seconds') {
    if (Math.abs(value) < 120) {
      return `${Math.round(value)} s`;
    }
    if (Math.abs(value) < 7200) {
      return `${Math.round(value / 60)} min`;
    }
    return `${Math.round((value / 3600) * 10) / 10} h`;
  }
  const noun = unit === 'runs' ? 'run' : 'hour';
  return `${rounded} ${rounded === 1 ? noun : `${noun}s`}`;
}

/**
 * The error budget in words: `37% of the error budget left: 1 min of
 * 4 min spent`, in the objective's unit.
 */
export function describeBudget(status: ObjectiveStatus['status']): string {
  const { errorBudget, unit } = status;
  if (errorBudget.remainingRatio === null) {
    return 'No error budget yet: nothing counted in the window';
  }
  const spent = `${amount(errorBudget.spent, unit)} of ${amount(
    errorBudget.total,
    unit,
  )} spent`;
  return errorBudget.remaining < 0
    ? `Error budget overspent: ${spent}`
    : `${formatBudgetLeft(
        errorBudget.remainingRatio,
      )} of the error budget left: ${spent}`;
}

/** Whether the objective is met so far, in words. */
export function describeAttainment(objective: ObjectiveStatus): string {
  const { attainment } = objective.status;
  if (attainment === null) {
    return 'No data yet';
  }
  return attainment >= objective.target
    ? 'Meeting the objective'
    : 'Missing the objective';
}

/** `Page: burning at 14.4× or faster over 1h and 5m`. */
export function describeAlert(alert: ObjectiveAlert): string {
  return `${
    alert.severity === 'page' ? 'Page' : 'Ticket'
  }: burning at ${formatBurnRate(alert.burnRate)} or faster over ${
    alert.longWindow
  } and ${alert.shortWindow}`;
}
