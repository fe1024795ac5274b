import { HealthStatus } from '../status';

/**
 * Why a system or an environment is not healthy: one failing slice and its
 * first failing condition, as the run displayed it.
 * @public
 */
export interface RollupReason {
  checkId: string;
  environment: string;
  status: HealthStatus;
  /** The failing condition as Gatus shows it (`[STATUS] (500) == 200`), or the probe error. */
  display: string;
  /** Canonical refs of the Components the check targets, when it names any. */
  components?: string[];
  /**
   * True when the check is in a maintenance window in this environment now:
   * its status is still the true one, its notifications wait for the end.
   */
  inMaintenance?: boolean;
}

/**
 * One environment of a system: the worst of its slices.
 * @public
 */
export interface EnvironmentRollup {
  name: string;
  status: HealthStatus;
  /** Slices that are healthy, of all its slices that are not paused. */
  healthy: number;
  total: number;
  /** ISO 8601: since when the environment has had this status. */
  since: string;
  /**
   * The upstream system (canonical ref) unhealthy in this environment that
   * explains its outage (`healthcheck.notifications.upstreamAttribution`);
   * absent when the environment is not unhealthy or nothing upstream
   * explains it.
   */
  causedBy?: string;
}

/**
 * A system this one depends on (`dependsOn` of the system or its members)
 * whose own rollup is not healthy.
 * @public
 */
export interface UpstreamProblem {
  systemRef: string;
  status: HealthStatus;
}

/**
 * The health of one system: what badges, graph nodes and the Health tab show.
 * @public
 */
export interface SystemRollup {
  /** Canonical (lower-case) entity ref, `system:default/payments`. */
  systemRef: string;
  /** The worst of its environments; `unknown` before any run. */
  status: HealthStatus;
  environments: EnvironmentRollup[];
  reasons: RollupReason[];
  /** Healthy slices of all slices not paused, across environments. */
  healthy: number;
  total: number;
  upstream: UpstreamProblem[];
  /** ISO 8601: when the rollup was computed. */
  updatedAt: string;
  /** ISO 8601: since when the system has had this status. */
  since: string;
  /**
   * True when the database could not be read and this is the last rollup
   * the backend read (see `updatedAt` for its age); absent otherwise.
   */
  stale?: boolean;
}

/**
 * The events topic of per-environment status changes.
 * @public
 */
export const ENVIRONMENT_CHANGED_TOPIC = 'healthcheck.environment.changed';

/**
 * The events topic of system status changes, inside the backend.
 * @public
 */
export const SYSTEM_STATUS_CHANGED_TOPIC = 'healthcheck.system.changed';

/**
 * The signals channel the frontend subscribes to for live updates; its
 * messages are {@link SystemStatusSignal}s.
 * @public
 */
export const SYSTEM_STATUS_SIGNAL_CHANNEL = 'healthcheck:system-status';

/**
 * Payload of {@link ENVIRONMENT_CHANGED_TOPIC}: one environment of one system
 * changed status.
 * @public
 */
export interface EnvironmentChangedEvent {
  systemRef: string;
  environment: string;
  from: HealthStatus;
  to: HealthStatus;
  /** ISO 8601. */
  at: string;
  /** The slices that made the environment's status: the worst ones. */
  slices: Array<{ sliceId: string; checkId: string; status: HealthStatus }>;
}

/**
 * Payload of {@link SYSTEM_STATUS_CHANGED_TOPIC}, on the backend's events
 * service only: a system's rollup changed status. Browsers get a
 * {@link SystemStatusSignal} instead, which says nothing of the system.
 * @public
 */
export interface SystemStatusChangedEvent {
  type: 'SYSTEM_STATUS_CHANGED';
  systemRef: string;
  from: HealthStatus;
  to: HealthStatus;
  rollup: SystemRollup;
}

/**
 * The message on {@link SYSTEM_STATUS_SIGNAL_CHANNEL}, which every signed-in
 * browser receives: some system's status changed. It carries only the
 * system's opaque `liveKey`, the one the API returns with the system's
 * rollup, so a page that shows the system knows to read it again (through
 * the API, which answers only what the caller may read) and nobody learns
 * anything of a system they cannot read.
 * @public
 */
export interface SystemStatusSignal {
  type: 'SYSTEM_STATUS_CHANGED';
  liveKey: string;
}

/**
 * One occurrence of a maintenance window, in force from `start`
 * (inclusive) to `end`.
 * @public
 */
export interface MaintenanceOccurrence {
  windowId: string;
  /** ISO 8601. */
  start: string;
  /** ISO 8601. */
  end: string;
  reason?: string;
}

/**
 * The maintenance windows over a system: those in force now, the next one
 * to start and, on a system's details, which checks are in maintenance now
 * in which environment. Statuses stay true: a failing check in maintenance
 * is failing, and marked.
 * @public
 */
export interface SystemMaintenance {
  current: MaintenanceOccurrence[];
  next?: MaintenanceOccurrence;
  /** On a system's details only (`GET /v1/systems/{namespace}/{name}`). */
  inMaintenance?: Array<{ checkId: string; environment: string }>;
}

/**
 * A system's objectives in one line: how many, and the one with the least
 * error budget left (`remainingRatio` null when nothing counted yet).
 * @public
 */
export interface SystemSloSummary {
  objectives: number;
  worst: {
    ref: string;
    title: string;
    environment: string;
    target: number;
    attainment: number | null;
    remainingRatio: number | null;
  };
}

/**
 * A system in `GET /v1/systems`: its rollup and what the catalog says of it.
 * A system without checks has status `unknown` and `total` 0.
 * @public
 */
export interface SystemHealthSummary extends SystemRollup {
  name: string;
  namespace: string;
  title?: string;
  /** The owner's entity ref, as the catalog has it. */
  owner?: string;
  /**
   * The system's key on {@link SYSTEM_STATUS_SIGNAL_CHANNEL}: a signal with
   * this `liveKey` means this system's rollup changed. Opaque and stable
   * for the deployment; it cannot be turned back into the system.
   */
  liveKey: string;
  /** The maintenance windows over the system's checks; absent when none does. */
  maintenance?: SystemMaintenance;
  /**
   * The system's service-level objectives that the caller may read: how
   * many, and the one with the least error budget left; absent when none.
   */
  slo?: SystemSloSummary;
}

/**
 * `GET /v1/systems`: one page of systems, with the counts of all that match.
 * @public
 */
export interface SystemListResponse {
  items: SystemHealthSummary[];
  /** Systems that match the filters, on all pages. */
  totalCount: number;
  /** Of the systems that match every filter but `status`, how many have each status. */
  counts: Record<HealthStatus, number>;
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/**
 * One cell of a system's environment x check matrix: one slice.
 * @public
 */
export interface SliceHealth {
  sliceId: string;
  checkId: string;
  environment: string;
  status: HealthStatus;
  paused: boolean;
  /** ISO 8601 of the last run, if any. */
  lastRunAt?: string;
  lastDurationMs?: number;
  /** The failing condition or probe error of the last run. */
  lastReason?: string;
  /** ISO 8601: since when the slice has had this status. */
  since?: string;
}

/**
 * `GET /v1/systems/{namespace}/{name}`: the rollup and the matrix of slices.
 * @public
 */
export interface SystemHealthDetails extends SystemHealthSummary {
  /** Environment names, sorted; the matrix's columns. */
  environmentNames: string[];
  /**
   * One row per check, with a cell per environment it runs in and the
   * canonical refs of the Components it targets, when it names any.
   */
  checks: Array<{
    checkId: string;
    components?: string[];
    cells: Record<string, SliceHealth>;
  }>;
}

/**
 * One run in a history or runs response. Times are epoch ms; a pause marker
 * has status `paused` and no outcome.
 * @public
 */
export interface RunEntry {
  sliceId: string;
  checkId?: string;
  environment?: string;
  scheduledAt: number;
  startedAt: number;
  durationMs?: number;
  outcome?: 'pass' | 'degraded' | 'fail';
  status: HealthStatus;
  conditions?: Array<{ condition: string; success: boolean; display: string }>;
  error?: { kind: string; message: string };
}

/**
 * One aggregated hour of one environment.
 * @public
 */
export interface HourEntry {
  environment: string;
  /** Epoch ms, a whole hour. */
  hourStart: number;
  runCount: number;
  failureCount: number;
  latencyP50Ms?: number;
  latencyP95Ms?: number;
  latencyP99Ms?: number;
  upSeconds: number;
  downSeconds: number;
  unknownSeconds: number;
  pausedSeconds: number;
  uptime?: number;
}

/**
 * `GET /v1/systems/{namespace}/{name}/history`.
 * @public
 */
export interface SystemHistoryResponse {
  granularity: 'hours' | 'runs';
  /** ISO 8601. */
  from: string;
  to: string;
  uptime: {
    uptime?: number;
    upSeconds: number;
    downSeconds: number;
    unknownSeconds: number;
    pausedSeconds: number;
  };
  responseTime: {
    runCount: number;
    p50Ms?: number;
    p95Ms?: number;
    p99Ms?: number;
  };
  items: Array<RunEntry | HourEntry>;
  nextCursor?: string;
}

/**
 * `GET /v1/slices/{sliceId}/runs`: a page of one slice's runs, newest first.
 * @public
 */
export interface SliceRunsResponse {
  runs: RunEntry[];
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

/**
 * A window of up-time per slice, ending now.
 * @public
 */
export type SliceUptimeWindow = '24h' | '7d' | '30d';

/**
 * The windows of {@link SliceUptimeResponse}, shortest first, and their
 * lengths in ms.
 * @public
 */
export const SLICE_UPTIME_WINDOWS: ReadonlyArray<{
  window: SliceUptimeWindow;
  ms: number;
}> = [
  { window: '24h', ms: 24 * 3_600_000 },
  { window: '7d', ms: 7 * 24 * 3_600_000 },
  { window: '30d', ms: 30 * 24 * 3_600_000 },
];

/**
 * `GET /v1/systems/{namespace}/{name}/uptime`: the time-weighted up-time of
 * each slice of a system (each cell of its matrix) over each window.
 * @public
 */
export interface SliceUptimeResponse {
  /** ISO 8601: the end of every window. */
  to: string;
  windows: SliceUptimeWindow[];
  /**
   * Per slice id, per window: up / (up + down) from 0 to 1, paused and
   * unknown time left out; `null` when the window has no up or down time.
   * A slice without any history in the windows may be missing.
   */
  slices: Record<string, Record<SliceUptimeWindow, number | null>>;
}

/**
 * The query of `GET /v1/systems`: filters, order and page.
 * @public
 */
export interface ListSystemsQuery {
  status?: HealthStatus[];
  owner?: string;
  environment?: string;
  q?: string;
  sort?: 'status' | 'name';
  limit?: number;
  cursor?: string;
}
