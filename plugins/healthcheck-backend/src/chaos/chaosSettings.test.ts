import { readChaosSettings, SCENARIO_NAMES } from './chaosSettings';

describe('readChaosSettings', () => {
  it("runs every scenario for CI's durations by default", () => {
    expect(readChaosSettings({})).toEqual({
      scenarios: [...SCENARIO_NAMES],
      outageMs: 60_000,
      latencyWindowMs: 60_000,
      latencyMs: 500,
      recoveryMs: 20_000,
      churnMs: 60_000,
      notifyRefusalMs: 60_000,
      pgCluster: undefined,
      keepDatabase: false,
    });
  });

  it('runs the scenarios of what people receive after the kill, before run now', () => {
    expect(SCENARIO_NAMES).toEqual([
      'db-drop',
      'db-latency',
      'pg-restart',
      'kill-and-restart',
      'notify-5xx',
      'kill-mid-transition',
      'rolling-deploy',
      'run-now',
      'churn',
    ]);
  });

  it('takes durations in seconds, and scenarios in their own order', () => {
    expect(
      readChaosSettings({
        VIGIL_CHAOS_SCENARIOS: 'churn, rolling-deploy,notify-5xx, db-drop',
        VIGIL_CHAOS_NOTIFY_REFUSAL_SECONDS: '45',
        VIGIL_CHAOS_OUTAGE_SECONDS: '90',
        VIGIL_CHAOS_CHURN_SECONDS: '300',
        VIGIL_CHAOS_LATENCY_MS: '250',
        VIGIL_CHAOS_PG_CLUSTER: '15/main',
        VIGIL_CHAOS_KEEP_DATABASE: '1',
      }),
    ).toMatchObject({
      scenarios: ['db-drop', 'notify-5xx', 'rolling-deploy', 'churn'],
      notifyRefusalMs: 45_000,
      outageMs: 90_000,
      churnMs: 300_000,
      latencyMs: 250,
      pgCluster: '15/main',
      keepDatabase: true,
    });
  });

  it('names the setting that makes no sense', () => {
    expect(() =>
      readChaosSettings({ VIGIL_CHAOS_SCENARIOS: 'db-dorp' }),
    ).toThrow('VIGIL_CHAOS_SCENARIOS names no scenario db-dorp');
    expect(() =>
      readChaosSettings({ VIGIL_CHAOS_OUTAGE_SECONDS: '5' }),
    ).toThrow(
      "VIGIL_CHAOS_OUTAGE_SECONDS must be a number of seconds >= 15, got '5'",
    );
    expect(() => readChaosSettings({ VIGIL_CHAOS_LATENCY_MS: 'x' })).toThrow(
      'VIGIL_CHAOS_LATENCY_MS',
    );
    // The outbox's retries back off for 31 s before they reach their longest delay.
    expect(() =>
      readChaosSettings({ VIGIL_CHAOS_NOTIFY_REFUSAL_SECONDS: '20' }),
    ).toThrow(
      "VIGIL_CHAOS_NOTIFY_REFUSAL_SECONDS must be a number of seconds >= 30, got '20'",
    );
  });
});
