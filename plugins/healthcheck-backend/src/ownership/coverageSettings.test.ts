import { ConfigReader } from '@backstage/config';
import { readCoverageSettings } from './coverageSettings';

describe('readCoverageSettings', () => {
  it('is the owner rule and 20 windows and 20 objectives per system, unless configured', () => {
    const defaults = readCoverageSettings(new ConfigReader({}));
    expect(defaults.rule).toBe('owner');
    expect(defaults.windowCap.perTarget).toBe(20);
    expect(defaults.objectiveCap.perTarget).toBe(20);

    const configured = readCoverageSettings(
      new ConfigReader({
        healthcheck: {
          checks: { fromCatalog: 'any' },
          maintenance: { maxWindowsPerSystem: 5 },
          slo: { maxObjectivesPerSystem: 50 },
        },
      }),
    );
    expect(configured.rule).toBe('any');
    expect(configured.windowCap).toMatchObject({
      perTarget: 5,
      key: 'healthcheck.maintenance.maxWindowsPerSystem',
    });
    expect(configured.objectiveCap).toMatchObject({
      perTarget: 50,
      key: 'healthcheck.slo.maxObjectivesPerSystem',
    });
  });

  it('names the key of a cap that is no whole number from 1 to 1000', () => {
    expect(() =>
      readCoverageSettings(
        new ConfigReader({
          healthcheck: { maintenance: { maxWindowsPerSystem: 0 } },
        }),
      ),
    ).toThrow(
      'Invalid healthcheck.maintenance.maxWindowsPerSystem 0: it is how many entities may reach one system, a whole number from 1 to 1000',
    );
    expect(() =>
      readCoverageSettings(
        new ConfigReader({
          healthcheck: { slo: { maxObjectivesPerSystem: 2.5 } },
        }),
      ),
    ).toThrow('Invalid healthcheck.slo.maxObjectivesPerSystem 2.5');
  });
});
