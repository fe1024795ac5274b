import type { CatalogPollRecord } from '../model';

/** How the poll is paced, from `healthcheck.reconcile`. */
export interface CatalogPollPacing {
  /** The poll task's own interval: no poll comes sooner. */
  catalogPollIntervalMs: number;
  /** The share of the time the poll may take, in (0, 1]. */
  catalogPollBudget: number;
  /** Between full passes, which read the whole catalog anyway. */
  intervalMs: number;
}

/**
 * When the next catalog poll may start. A poll's cost grows with the
 * catalog (the catalog parses every entity a list names, whatever fields
 * are asked for), so after a poll that took T the next waits T / budget:
 * at the default 1% a 50,000-entity catalog is polled every few minutes
 * rather than every 30 s, and a small one still on the interval. Never
 * later than a full pass's interval after the last: the full pass reads
 * everything, so polling less often than it would find nothing new.
 * The catalog module's change announcements reach the backend within
 * seconds whatever the pace; the poll is what catches the rest.
 * @internal
 */
export function nextCatalogPollAt(
  last: CatalogPollRecord | undefined,
  pacing: CatalogPollPacing,
): number {
  if (!last) {
    return -Infinity;
  }
  const spacing = Math.min(
    Math.max(0, last.tookMs) / pacing.catalogPollBudget,
    Math.max(pacing.intervalMs, pacing.catalogPollIntervalMs),
  );
  return last.startedAt + spacing;
}
