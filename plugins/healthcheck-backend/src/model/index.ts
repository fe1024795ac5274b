/**
 * The run path's records and the interfaces of the stores that keep them.
 *
 * Each table has one writer:
 * - `healthcheck_runs`: the claim store (`claims/DatabaseClaimStore`):
 *   claims, results, runs written after an outage, and pause markers (the
 *   slice store has it write them inside its own transaction). Retention
 *   deletes are the history store's (`pruneRuns`, run by the history
 *   maintenance), which alone knows which hours are aggregated.
 * - `healthcheck_run_hours`, `healthcheck_history_state`: the history store
 *   (`history/DatabaseHistoryStore`).
 * - `healthcheck_slice_states`, `healthcheck_environment_states`,
 *   `healthcheck_rollups`, `healthcheck_rollup_claims`: the state store
 *   (`database/DatabaseStateStore`).
 * - `healthcheck_slices`, `healthcheck_reconcile_state`,
 *   `healthcheck_catalog_fingerprints`: the slice store
 *   (`database/DatabaseSliceStore`).
 * - `healthcheck_instances`: the claim store.
 * - `healthcheck_checks`: the check store (`database/DatabaseHealthcheckStore`);
 *   `healthcheck_deployment_keys`: `database/deploymentKeys`.
 */
export type * from './ClaimStore';
export type * from './HistoryStore';
export type * from './runs';
export type * from './SliceStore';
export type * from './slices';
export type * from './states';
