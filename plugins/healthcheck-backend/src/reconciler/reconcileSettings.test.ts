import { ConfigReader } from '@backstage/config';
import {
  readDesiredSliceSettings,
  readReconcileSettings,
} from './reconcileSettings';

describe('readReconcileSettings', () => {
  it('runs a full pass every 5 minutes and polls the catalog every 30 s, within 1% of the time, unless told otherwise', () => {
    expect(readReconcileSettings(new ConfigReader({}))).toEqual({
      intervalMs: 300_000,
      catalogPollIntervalMs: 30_000,
      catalogPollBudget: 0.01,
      tombstoneRetentionMs: 3_600_000,
    });
  });

  it('reads the poll budget as a share of the time', () => {
    const config = new ConfigReader({
      healthcheck: { reconcile: { catalogPollBudget: 0.05 } },
    });
    expect(readReconcileSettings(config).catalogPollBudget).toBe(0.05);
  });

  it.each([0, -0.01, 1.5])(
    'refuses a poll budget of %p, naming the key and what it is',
    budget => {
      const config = new ConfigReader({
        healthcheck: { reconcile: { catalogPollBudget: budget } },
      });
      expect(() => readReconcileSettings(config)).toThrow(
        `Invalid healthcheck.reconcile.catalogPollBudget ${budget}: it is the share of the time the catalog poll may take, above 0 and at most 1 (0.01 is 1%)`,
      );
    },
  );

  it('refuses a poll budget that is not a number', () => {
    const config = new ConfigReader({
      healthcheck: { reconcile: { catalogPollBudget: 'a little' } },
    });
    expect(() => readReconcileSettings(config)).toThrow(
      /healthcheck\.reconcile\.catalogPollBudget/,
    );
  });

  it('reads both periods as durations', () => {
    const config = new ConfigReader({
      healthcheck: {
        reconcile: { interval: '1m', catalogPollInterval: '10s' },
      },
    });
    expect(readReconcileSettings(config)).toMatchObject({
      intervalMs: 60_000,
      catalogPollIntervalMs: 10_000,
    });
  });

  it('reads both periods as objects too', () => {
    const config = new ConfigReader({
      healthcheck: {
        reconcile: {
          interval: { minutes: 10 },
          catalogPollInterval: { seconds: 45 },
        },
      },
    });
    expect(readReconcileSettings(config)).toMatchObject({
      intervalMs: 600_000,
      catalogPollIntervalMs: 45_000,
    });
  });

  it('names the key and the value of a duration it cannot read', () => {
    const config = new ConfigReader({
      healthcheck: { reconcile: { catalogPollInterval: 'soon' } },
    });
    expect(() => readReconcileSettings(config)).toThrow(
      /Invalid healthcheck\.reconcile\.catalogPollInterval 'soon': /,
    );
  });
});

describe('readDesiredSliceSettings', () => {
  it("takes environments only from members of the system's owner, and no placeholder hosts, unless told otherwise", () => {
    expect(readDesiredSliceSettings(new ConfigReader({}))).toEqual({
      environmentsFromMembers: 'owner',
      allowPlaceholderHosts: false,
      checksFromCatalog: 'owner',
    });
  });

  it('reads every opt-out', () => {
    const config = new ConfigReader({
      healthcheck: {
        environments: { fromMembers: 'any' },
        targets: { allowPlaceholderHosts: true },
        checks: { fromCatalog: 'any' },
      },
    });
    expect(readDesiredSliceSettings(config)).toEqual({
      environmentsFromMembers: 'any',
      allowPlaceholderHosts: true,
      checksFromCatalog: 'any',
    });
  });

  it('names the key and the value it does not know', () => {
    const config = new ConfigReader({
      healthcheck: { environments: { fromMembers: 'everyone' } },
    });
    expect(() => readDesiredSliceSettings(config)).toThrow(
      "Invalid healthcheck.environments.fromMembers 'everyone': use owner or any",
    );
    expect(() =>
      readDesiredSliceSettings(
        new ConfigReader({ healthcheck: { checks: { fromCatalog: 'all' } } }),
      ),
    ).toThrow("Invalid healthcheck.checks.fromCatalog 'all': use owner or any");
  });
});
