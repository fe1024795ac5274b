import { ConfigReader } from '@backstage/config';
import { readOutageSettings } from './outageSettings';

describe('readOutageSettings', () => {
  it('journals up to 100,000 runs (ten minutes of 10,000 slices a minute) and 10,000 pings unless configured', () => {
    expect(readOutageSettings(new ConfigReader({}))).toEqual({
      maxJournaledRuns: 100_000,
      maxJournaledPings: 10_000,
    });
  });

  it('reads the bounds', () => {
    const config = new ConfigReader({
      healthcheck: { outage: { maxJournaledRuns: 500, maxJournaledPings: 50 } },
    });
    expect(readOutageSettings(config)).toEqual({
      maxJournaledRuns: 500,
      maxJournaledPings: 50,
    });
  });

  it.each([
    ['maxJournaledRuns', 0],
    ['maxJournaledRuns', 2.5],
    ['maxJournaledPings', -1],
    ['maxJournaledPings', 'many'],
  ])('refuses %s %p, naming the key', (key, value) => {
    const config = new ConfigReader({
      healthcheck: { outage: { [key]: value } },
    });
    expect(() => readOutageSettings(config)).toThrow(
      `Invalid healthcheck.outage.${key} '${value}': it must be a whole number of at least 1`,
    );
  });
});
