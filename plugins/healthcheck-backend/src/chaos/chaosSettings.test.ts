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
      pgCluster: undefined,
      keepDatabase: false,
    });
  });

  it('takes durations in seconds, and scenarios in their own order', () => {
    expect(
      readChaosSettings({
        VIGIL_CHAOS_SCENARIOS: 'churn, db-drop',
        VIGIL_CHAOS_OUTAGE_SECONDS: '90',
        VIGIL_CHAOS_CHURN_SECONDS: '300',
        VIGIL_CHAOS_LATENCY_MS: '250',
        VIGIL_CHAOS_PG_CLUSTER: '15/main',
        VIGIL_CHAOS_KEEP_DATABASE: '1',
      }),
    ).toMatchObject({
      scenarios: ['db-drop', 'churn'],
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
  });
});
