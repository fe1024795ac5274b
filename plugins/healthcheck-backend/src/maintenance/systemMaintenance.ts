import type { MaintenanceWindow } from './maintenanceWindows';
import { windowCovers } from './maintenanceWindows';
import { nextWindow, WindowOccurrence, windowsActiveAt } from './occurrences';

/**
 * The maintenance of a system as its page shows it: the occurrences in
 * force over any of its slices, the next one to start, and which (check,
 * environment) pairs are in maintenance now. Statuses are not touched: a
 * failing check in maintenance is still failing, and marked.
 * @internal
 */
export interface SystemMaintenance {
  current: Array<{
    windowId: string;
    start: string;
    end: string;
    reason?: string;
  }>;
  next?: { windowId: string; start: string; end: string; reason?: string };
  inMaintenance: Array<{ checkId: string; environment: string }>;
}

/**
 * {@link SystemMaintenance} of a system's slices, at `now`, from the
 * windows given (all those known; those covering none of the slices are
 * left out).
 * @internal
 */
export function systemMaintenance(
  windows: readonly MaintenanceWindow[],
  slices: ReadonlyArray<{
    checkId: string;
    systemRef: string;
    environment: string;
  }>,
  now: number,
): SystemMaintenance | undefined {
  const relevant = windows.filter(window =>
    slices.some(slice => windowCovers(window, slice)),
  );
  if (relevant.length === 0) {
    return undefined;
  }
  const current = windowsActiveAt(relevant, now);
  const activeIds = new Set(current.map(o => o.windowId));
  const inMaintenance = slices
    .filter(slice =>
      relevant.some(w => activeIds.has(w.id) && windowCovers(w, slice)),
    )
    .map(({ checkId, environment }) => ({ checkId, environment }));
  const next = nextWindow(relevant, now);
  return {
    current: current.map(occurrenceJson),
    ...(next && { next: occurrenceJson(next) }),
    inMaintenance,
  };
}

function occurrenceJson(o: WindowOccurrence) {
  return {
    windowId: o.windowId,
    start: new Date(o.startMs).toISOString(),
    end: new Date(o.endMs).toISOString(),
    ...(o.reason !== undefined && { reason: o.reason }),
  };
}

/**
 * A system's details with its maintenance, only for checks the caller may
 * see, and its reasons marked `inMaintenance` where they are.
 * @internal
 */
export function withMaintenance<
  T extends {
    reasons: Array<{ checkId: string; environment: string }>;
    checks: Array<{ checkId: string }>;
  },
>(
  details: T,
  maintenance: SystemMaintenance,
): T & { maintenance: SystemMaintenance } {
  const visible = new Set(details.checks.map(c => c.checkId));
  const key = (p: { checkId: string; environment: string }) =>
    `${p.checkId}\u0000${p.environment}`;
  const inMaintenance = maintenance.inMaintenance.filter(p =>
    visible.has(p.checkId),
  );
  const marked = new Set(inMaintenance.map(key));
  return {
    ...details,
    reasons: details.reasons.map(reason =>
      marked.has(key(reason)) ? { ...reason, inMaintenance: true } : reason,
    ),
    maintenance: { ...maintenance, inMaintenance },
  };
}
