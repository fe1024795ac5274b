/** The scenarios, in the order the suite runs them. @internal */
export const SCENARIO_NAMES = [
  'db-drop',
  'db-latency',
  'pg-restart',
  'kill-and-restart',
  'notify-5xx',
  'kill-mid-transition',
  'rolling-deploy',
  'run-now',
  'churn',
] as const;

/** @internal */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * How long the suite's faults last, from the environment. The defaults are
 * CI's: the whole suite in about eleven minutes.
 * @internal
 */
export interface ChaosSettings {
  /** VIGIL_CHAOS_SCENARIOS: a comma-separated subset; default all. */
  scenarios: ScenarioName[];
  /** VIGIL_CHAOS_OUTAGE_SECONDS: the proxy drops the database; default 60. */
  outageMs: number;
  /** VIGIL_CHAOS_LATENCY_SECONDS: every database packet is late; default 60. */
  latencyWindowMs: number;
  /** VIGIL_CHAOS_LATENCY_MS: how late; default 500. */
  latencyMs: number;
  /**
   * VIGIL_CHAOS_RECOVERY_SECONDS: watched after each fault ends (ticks of
   * the database's return, and the wait for correct rollups); default 20.
   */
  recoveryMs: number;
  /** VIGIL_CHAOS_CHURN_SECONDS: checks made and deleted each second; default 60. */
  churnMs: number;
  /**
   * VIGIL_CHAOS_NOTIFY_REFUSAL_SECONDS: the notifications backends answer
   * 503 (notify-5xx); default 60.
   */
  notifyRefusalMs: number;
  /**
   * VIGIL_CHAOS_PG_CLUSTER: the cluster pg-restart restarts with
   * pg_ctlcluster, `15/main`; default the first in /etc/postgresql.
   */
  pgCluster?: string;
  /** VIGIL_CHAOS_KEEP_DATABASE=1 keeps the suite's database to look at. */
  keepDatabase: boolean;
}

function seconds(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  minimum: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    return fallback * 1000;
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value < minimum) {
    throw new Error(
      `${name} must be a number of seconds >= ${minimum}, got '${raw}'`,
    );
  }
  return value * 1000;
}

/** Reads the settings; a value that makes no sense is an error that names it. @internal */
export function readChaosSettings(
  env: Record<string, string | undefined>,
): ChaosSettings {
  const names = (env.VIGIL_CHAOS_SCENARIOS ?? '')
    .split(',')
    .map(name => name.trim())
    .filter(Boolean);
  const unknown = names.filter(
    name => !(SCENARIO_NAMES as readonly string[]).includes(name),
  );
  if (unknown.length > 0) {
    throw new Error(
      `VIGIL_CHAOS_SCENARIOS names no scenario ${unknown.join(
        ', ',
      )}; the scenarios are ${SCENARIO_NAMES.join(', ')}`,
    );
  }
  const latencyMs = Number(env.VIGIL_CHAOS_LATENCY_MS ?? 500);
  if (!Number.isInteger(latencyMs) || latencyMs < 1) {
    throw new Error(
      `VIGIL_CHAOS_LATENCY_MS must be a whole number of milliseconds >= 1, got '${env.VIGIL_CHAOS_LATENCY_MS}'`,
    );
  }
  return {
    scenarios:
      names.length > 0
        ? SCENARIO_NAMES.filter(name => names.includes(name))
        : [...SCENARIO_NAMES],
    // Faults shorter than the instances' TTL (15 s) would test little.
    outageMs: seconds(env, 'VIGIL_CHAOS_OUTAGE_SECONDS', 60, 15),
    latencyWindowMs: seconds(env, 'VIGIL_CHAOS_LATENCY_SECONDS', 60, 15),
    latencyMs,
    // Rollups have 10 s to be right; watching less could not tell.
    recoveryMs: seconds(env, 'VIGIL_CHAOS_RECOVERY_SECONDS', 20, 12),
    churnMs: seconds(env, 'VIGIL_CHAOS_CHURN_SECONDS', 60, 10),
    // Long enough for the outbox's retries to back off to their longest
    // delay (1 + 2 + 4 + 8 + 16 s, then 30 s): the return is waited for.
    notifyRefusalMs: seconds(env, 'VIGIL_CHAOS_NOTIFY_REFUSAL_SECONDS', 60, 30),
    pgCluster: env.VIGIL_CHAOS_PG_CLUSTER || undefined,
    keepDatabase: env.VIGIL_CHAOS_KEEP_DATABASE === '1',
  };
}
