import { ConfigReader } from '@backstage/config';
import { readOutageSettings } from './outageSettings';

describe('readOutageSettings', () => {
  it('journals up to 100,000 runs unless configured: ten minutes of 10,000 slices a minute', () => {
    expect(readOutageSettings(new ConfigReader({}))).toEqual({
      maxJournaledRuns: 100_000,
    });
  });

  it('reads the bound', () => {
    const config = new ConfigReader({
      healthcheck: { outage: { maxJournaledRuns: 500 } },
    });
    expect(readOutageSettings(config)).toEqual({ maxJournaledRuns: 500 });
  });

  it.each([0, 2.5, -1, 'many'])('refuses %p, naming the key', value => {
    const config = new ConfigReader({
      healthcheck: { outage: { maxJournaledRuns: value } },
    });
    expect(() => readOutageSettings(config)).toThrow(
      `Invalid healthcheck.outage.maxJournaledRuns '${value}': it must be a whole number of at least 1`,
    );
  });
});
