import { ConfigReader } from '@backstage/config';
import {
  readDesiredSliceSettings,
  readReconcileSettings,
} from './reconcileSettings';

describe('readReconcileSettings', () => {
  it('runs a full pass every 5 minutes and polls the catalog every 30 s unless told otherwise', () => {
    expect(readReconcileSettings(new ConfigReader({}))).toEqual({
      intervalMs: 300_000,
      catalogPollIntervalMs: 30_000,
      tombstoneRetentionMs: 3_600_000,
    });
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
