import type { MetricsService } from '@backstage/backend-plugin-api/alpha';

/**
 * What became of a result at the outage journal: `journaled` (kept until
 * the database takes it), `duplicate` (its tick was journaled already),
 * `dropped` (the oldest, over the bound: lost), `written` (in the database).
 * @internal
 */
export type JournalEvent = 'journaled' | 'duplicate' | 'dropped' | 'written';

/**
 * Where the outage journal reports: a narrow interface so tests can pass a
 * recorder; production binds Backstage's metrics service with
 * {@link createJournalMetrics}.
 * @internal
 */
export interface JournalMetrics {
  addEntries(count: number, event: JournalEvent): void;
  /** Registers a reader of the journal's size, polled at collection time. */
  observeSize(read: () => number): void;
}

/** @internal */
export const noopJournalMetrics: JournalMetrics = {
  addEntries() {},
  observeSize() {},
};

/**
 * The names a journal reports under: the run journal's by default.
 * @internal
 */
export interface JournalMetricNames {
  entries: string;
  size: string;
  /** What the journal holds, for the descriptions: `Run results`. */
  what: string;
}

const RUN_JOURNAL_METRICS: JournalMetricNames = {
  entries: 'healthcheck.journal.entries',
  size: 'healthcheck.journal.size',
  what: 'Run results',
};

/** @internal */
export function createJournalMetrics(
  metrics: MetricsService,
  names: JournalMetricNames = RUN_JOURNAL_METRICS,
): JournalMetrics {
  const entries = metrics.createCounter<{ event: JournalEvent }>(
    names.entries,
    {
      description: `${names.what} at the outage journal, by event (journaled, duplicate, dropped over the bound, written)`,
    },
  );
  const size = metrics.createObservableGauge(names.size, {
    description: `${names.what} waiting in the outage journal`,
  });
  return {
    addEntries: (count, event) => {
      if (count > 0) {
        entries.add(count, { event });
      }
    },
    observeSize: read => {
      size.addCallback(result => result.observe(read()));
    },
  };
}
