import { toMillis } from '../../format/relativeTime';
import { HISTORY_RANGES, HistoryRange } from './historyData';

/** An absolute date and time in the reader's locale, for titles and tooltips. */
export function formatTimestamp(value: string | number | undefined): string {
  const ms = toMillis(value);
  return ms === undefined ? '' : new Date(ms).toLocaleString();
}

/** `87 ms`, `1.24 s`; an en dash without a value. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) {
    return '–';
  }
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** Up-time as a percentage with two decimals (`99.95%`); `no data` when unknown. */
export function formatUptime(uptime: number | undefined): string {
  if (uptime === undefined || !Number.isFinite(uptime)) {
    return 'no data';
  }
  if (uptime >= 1) {
    return '100%';
  }
  // Never round a failing up-time up to 100%.
  return `${(Math.floor(uptime * 10_000) / 100).toFixed(2)}%`;
}

/** The up-time of a matrix cell over one window, `99.95%`; an en dash without data. */
export function formatCellUptime(uptime: number | null | undefined): string {
  return uptime === null || uptime === undefined ? '–' : formatUptime(uptime);
}

/**
 * The up-time of a matrix cell in words, for its accessible name:
 * `up-time 99.95% over 24 hours, 100% over 7 days, no data over 30 days`.
 */
export function describeCellUptime(
  uptime: Partial<Record<HistoryRange, number | null>> | undefined,
): string {
  return `up-time ${HISTORY_RANGES.map(
    ({ range, label }) =>
      `${formatUptime(uptime?.[range] ?? undefined)} over ${label}`,
  ).join(', ')}`;
}

/** A short label of a check id: the name of a GitOps entity ref, or the API id. */
export function shortCheckName(checkId: string): string {
  const match = /^healthcheck:(?:[^/]+\/)?(.+)$/i.exec(checkId);
  return match ? match[1] : checkId;
}

/** The URL of a `url:https://...` location; undefined for other location types. */
export function urlOfLocation(
  location: string | undefined,
): string | undefined {
  if (!location) {
    return undefined;
  }
  const match = /^url:(https?:\/\/.+)$/i.exec(location.trim());
  return match ? match[1] : undefined;
}
