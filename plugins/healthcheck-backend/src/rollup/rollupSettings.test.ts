import { ConfigReader } from '@backstage/config';
import { readRollupSettings } from './rollupSettings';

describe('readRollupSettings', () => {
  it('attributes outages to upstream systems the failing checks target unless told otherwise', () => {
    expect(readRollupSettings(new ConfigReader({}))).toEqual({
      windowMs: 2_000,
      notifications: {
        productionEnvironments: ['production', 'prod'],
        suppressUpstream: false,
        upstreamAttribution: 'targets',
        groupUpstreamIncidents: true,
        upstreamGraceMs: 300_000,
        upstreamSettleMs: 2_000,
      },
    });
  });

  it('reads the window as an object too', () => {
    const config = new ConfigReader({
      healthcheck: { rollup: { window: { milliseconds: 1500 } } },
    });
    expect(readRollupSettings(config).windowMs).toBe(1_500);
  });

  it('reads the notification settings', () => {
    const config = new ConfigReader({
      healthcheck: {
        rollup: { window: '5s' },
        notifications: {
          productionEnvironments: ['live'],
          suppressUpstream: true,
          upstreamAttribution: 'any',
          groupUpstreamIncidents: false,
          upstreamGrace: '10m',
          remindAfter: '4h',
        },
      },
    });
    expect(readRollupSettings(config)).toEqual({
      windowMs: 5_000,
      notifications: {
        productionEnvironments: ['live'],
        suppressUpstream: true,
        upstreamAttribution: 'any',
        groupUpstreamIncidents: false,
        upstreamGraceMs: 600_000,
        remindAfterMs: 4 * 3_600_000,
        upstreamSettleMs: 2_000,
      },
    });
  });

  it('refuses reminders more often than once a minute, naming the key', () => {
    const config = new ConfigReader({
      healthcheck: { notifications: { remindAfter: '10s' } },
    });
    expect(() => readRollupSettings(config)).toThrow(
      'healthcheck.notifications.remindAfter',
    );
  });

  it('refuses an attribution it does not know, naming the choices', () => {
    const config = new ConfigReader({
      healthcheck: { notifications: { upstreamAttribution: 'all' } },
    });
    expect(() => readRollupSettings(config)).toThrow(
      "Invalid healthcheck.notifications.upstreamAttribution 'all': use 'targets' or 'any'",
    );
  });
});
