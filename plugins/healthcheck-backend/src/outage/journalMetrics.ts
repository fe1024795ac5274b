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

/** @internal */
export function createJournalMetrics(metrics: MetricsService): JournalMetrics {
  const entries = metrics.createCounter<{ event: JournalEvent }>(
    'healthcheck.journal.entries',
    {
      description:
        'Run results at the outage journal, by event (journaled, duplicate, dropped over the bound, written)',
    },
  );
  const size = metrics.createObservableGauge('healthcheck.journal.size', {
    description: 'Run results waiting in the outage journal',
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
