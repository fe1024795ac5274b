import { ConfigReader } from '@backstage/config';
import { readSweepSettings } from './sweepSettings';

describe('readSweepSettings', () => {
  it('sweeps every minute unless configured', () => {
    expect(readSweepSettings(new ConfigReader({}))).toEqual({
      intervalMs: 60_000,
    });
  });

  it('reads the interval as a duration', () => {
    const config = new ConfigReader({
      healthcheck: { sweep: { interval: '30s' } },
    });
    expect(readSweepSettings(config)).toEqual({ intervalMs: 30_000 });
  });

  it('reads the interval as an object too', () => {
    const config = new ConfigReader({
      healthcheck: { sweep: { interval: { minutes: 2 } } },
    });
    expect(readSweepSettings(config)).toEqual({ intervalMs: 120_000 });
  });

  it('refuses an interval below 5 s, naming the key', () => {
    const config = new ConfigReader({
      healthcheck: { sweep: { interval: '1s' } },
    });
    expect(() => readSweepSettings(config)).toThrow(
      "Invalid healthcheck.sweep.interval '1s': it must be at least 5s",
    );
    expect(() =>
      readSweepSettings(
        new ConfigReader({
          healthcheck: { sweep: { interval: { seconds: 1 } } },
        }),
      ),
    ).toThrow(
      'Invalid healthcheck.sweep.interval {"seconds":1}: it must be at least 5s',
    );
  });
});
