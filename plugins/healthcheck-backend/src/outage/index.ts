/**
 * Outage mode: results reach the database through a bounded journal, and
 * probing goes on unclaimed while the database cannot be reached.
 */
export { createJournalMetrics, noopJournalMetrics } from './journalMetrics';
export type { JournalEvent, JournalMetrics } from './journalMetrics';
export { OutageJournal } from './OutageJournal';
export type { JournalFlush } from './OutageJournal';
export { OutageMode } from './OutageMode';
export type { JournaledRun } from './OutageMode';
export { readOutageSettings } from './outageSettings';
export type { OutageSettings } from './outageSettings';
