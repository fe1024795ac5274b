import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { JsonObject } from '@backstage/types';
import {
  decodeSliceId,
  HealthCheckSpec,
  resolveCheckTiming,
} from '@vigil/plugin-healthcheck-common';
import { readDemoCatalog } from './__testUtils__/demoCatalog';
import {
  canonicalJson,
  desiredSlices,
  ReconcilableCheck,
  SystemEnvironments,
} from './desiredSlices';
import {
  groupMembersBySystem,
  resolveEnvironments,
} from './resolveEnvironments';

function check(
  id: string,
  spec: Partial<HealthCheckSpec>,
  extra: Partial<ReconcilableCheck> = {},
): ReconcilableCheck {
  const full: HealthCheckSpec = {
    type: 'http',
    target:
      'https://{{ system.name }}.{{ environment.name }}.example.com/health',
    systems: ['shop'],
    interval: '10s',
    timeout: '2s',
    ...spec,
  };
  return {
    id,
    source: { kind: 'api' },
    spec: full,
    ...resolveCheckTiming(full),
    ...extra,
  };
}

const shop: SystemEnvironments = {
  ref: 'system:default/shop',
  name: 'shop',
  environments: ['production', 'staging'],
};
const billing: SystemEnvironments = {
  ref: 'system:default/billing',
  name: 'billing',
  environments: ['default'],
};

describe('desiredSlices', () => {
  it('derives one slice per system and environment, with the target rendered for each', () => {
    const { slices, paused, unresolvedSystems } = desiredSlices({
      checks: [check('web', { systems: ['shop', 'system:default/billing'] })],
      systems: [shop, billing],
    });
    expect(
      slices.map(s => [s.id, s.target, s.intervalMs, s.timeoutMs]),
    ).toEqual([
      [
        'healthcheck:web:system%3Adefault%2Fshop:production',
        'https://shop.production.example.com/health',
        10_000,
        2_000,
      ],
      [
        'healthcheck:web:system%3Adefault%2Fshop:staging',
        'https://shop.staging.example.com/health',
        10_000,
        2_000,
      ],
      [
        'healthcheck:web:system%3Adefault%2Fbilling:default',
        'https://billing.default.example.com/health',
        10_000,
        2_000,
      ],
    ]);
    expect(paused).toEqual([]);
    expect(unresolvedSystems).toEqual([]);
    for (const slice of slices) {
      expect(decodeSliceId(slice.id)).toEqual({
        checkId: slice.checkId,
        systemRef: slice.systemRef,
        environment: slice.environment,
      });
    }
  });

  it('keeps only the environments the check filters for, without regard to case', () => {
    const { slices } = desiredSlices({
      checks: [check('web', { environments: ['Staging', 'qa'] })],
      systems: [shop],
    });
    expect(slices.map(s => s.environment)).toEqual(['staging']);
  });

  it('returns the slices of a paused check apart, so their state can show paused', () => {
    const { slices, paused } = desiredSlices({
      checks: [check('web', { paused: true, environments: ['production'] })],
      systems: [shop],
    });
    expect(slices).toEqual([]);
    expect(paused).toEqual([
      {
        id: 'healthcheck:web:system%3Adefault%2Fshop:production',
        checkId: 'web',
        systemRef: 'system:default/shop',
        environment: 'production',
      },
    ]);
  });

  it('derives nothing from a disabled check', () => {
    expect(
      desiredSlices({
        checks: [check('web', {}, { enabled: false })],
        systems: [shop],
      }),
    ).toEqual({ slices: [], paused: [], unresolvedSystems: [] });
  });

  it('derives nothing for a system the check is not assigned to', () => {
    const { slices } = desiredSlices({
      checks: [check('web', { systems: ['billing'] })],
      systems: [shop, billing],
    });
    expect(slices.map(s => s.systemRef)).toEqual(['system:default/billing']);
  });

  it('matches refs in canonical form, fills in the namespace of a GitOps check, and counts a system listed twice once', () => {
    const teamShop = { ...shop, ref: 'system:team-a/shop' };
    const { slices, unresolvedSystems } = desiredSlices({
      checks: [
        check(
          'healthcheck:team-a/web',
          { systems: ['Shop', 'System:team-a/SHOP', 'system:default/shop'] },
          {
            source: { kind: 'gitops', entityRef: 'healthcheck:team-a/web' },
          },
        ),
      ],
      systems: [teamShop],
    });
    expect(slices.map(s => s.systemRef)).toEqual([
      'system:team-a/shop',
      'system:team-a/shop',
    ]);
    expect(unresolvedSystems).toEqual([
      {
        checkId: 'healthcheck:team-a/web',
        systemRef: 'system:default/shop',
        reason: 'no such system in the catalog',
      },
    ]);
  });

  it('gives every slice, paused ones too, the components the check targets, canonical and each once', () => {
    const { slices, paused } = desiredSlices({
      checks: [
        check(
          'healthcheck:team-a/web',
          {
            systems: ['system:default/shop'],
            components: ['Web', 'component:team-a/web', 'component:default/db'],
          },
          {
            source: { kind: 'gitops', entityRef: 'healthcheck:team-a/web' },
          },
        ),
        check('api', { paused: true, components: ['api'] }),
        check('plain', {}),
      ],
      systems: [shop],
    });
    expect(slices.map(s => [s.checkId, s.environment, s.components])).toEqual([
      [
        'healthcheck:team-a/web',
        'production',
        ['component:default/db', 'component:team-a/web'],
      ],
      [
        'healthcheck:team-a/web',
        'staging',
        ['component:default/db', 'component:team-a/web'],
      ],
      ['plain', 'production', undefined],
      ['plain', 'staging', undefined],
    ]);
    expect(slices[2]).not.toHaveProperty('components');
    expect(paused.map(s => s.components)).toEqual([
      ['component:default/api'],
      ['component:default/api'],
    ]);
  });

  it('reports a system ref that does not parse', () => {
    const { unresolvedSystems } = desiredSlices({
      checks: [check('web', { systems: ['system:'] })],
      systems: [shop],
    });
    expect(unresolvedSystems).toEqual([
      {
        checkId: 'web',
        systemRef: 'system:',
        reason: expect.stringContaining('system:'),
      },
    ]);
  });

  it('applies the environment override before rendering the target', () => {
    const { slices } = desiredSlices({
      checks: [
        check('web', {
          config: { headers: { Authorization: 'prod', Accept: 'json' } },
          environmentOverrides: {
            Staging: {
              target: 'https://staging-{{ system.name }}.internal/health',
              config: { headers: { Authorization: 'staging' } },
            },
          },
        }),
      ],
      systems: [shop],
    });
    expect(slices.map(s => [s.environment, s.target, s.config])).toEqual([
      [
        'production',
        'https://shop.production.example.com/health',
        { headers: { Authorization: 'prod', Accept: 'json' } },
      ],
      [
        'staging',
        'https://staging-shop.internal/health',
        { headers: { Authorization: 'staging', Accept: 'json' } },
      ],
    ]);
  });

  describe('configHash', () => {
    const hashOf = (spec: Partial<HealthCheckSpec>) =>
      desiredSlices({
        checks: [check('web', { environments: ['production'], ...spec })],
        systems: [shop],
      }).slices[0].configHash;
    const base = hashOf({});

    it('is a sha256 hex digest, the same for the same check', () => {
      expect(base).toMatch(/^[0-9a-f]{64}$/);
      expect(hashOf({})).toBe(base);
    });

    it('ignores timing and the order keys were written in', () => {
      expect(hashOf({ interval: '1m', timeout: '5s' })).toBe(base);
      expect(
        hashOf({ config: { method: 'GET', headers: { A: '1', B: '2' } } }),
      ).toBe(
        hashOf({ config: { headers: { B: '2', A: '1' }, method: 'GET' } }),
      );
    });

    it.each<[string, Partial<HealthCheckSpec>]>([
      ['type', { type: 'tcp' }],
      ['target', { target: 'https://other.example.com' }],
      ['config', { config: { method: 'HEAD' } }],
      ['conditions', { conditions: ['[STATUS] == 200'] }],
      ['thresholds', { thresholds: { failure: 3 } }],
      [
        'the override of this environment',
        { environmentOverrides: { production: { config: { a: 1 } } } },
      ],
    ])('changes with %s', (_, spec) => {
      expect(hashOf(spec)).not.toBe(base);
    });

    it('ignores the components the check targets: they change nothing a run does', () => {
      expect(hashOf({ components: ['component:default/web'] })).toBe(base);
    });

    it('is the same for an override of another environment', () => {
      expect(
        hashOf({ environmentOverrides: { staging: { target: 'x' } } }),
      ).toBe(base);
    });
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level, keeps array order, and drops undefined fields', () => {
    expect(
      canonicalJson({
        b: [{ d: 1, c: 2 }, 'x'],
        a: null,
        u: undefined,
      } as unknown as JsonObject),
    ).toBe('{"a":null,"b":[{"c":2,"d":1},"x"]}');
  });
});

describe('desiredSlices on the demo catalog', () => {
  const entities = readDemoCatalog();
  const membersBySystem = groupMembersBySystem(entities);
  const systems = entities
    .filter(e => e.kind === 'System')
    .map(system => ({
      ref: stringifyEntityRef(system),
      name: system.metadata.name,
      environments: resolveEnvironments({
        system,
        members: membersBySystem.get(stringifyEntityRef(system)) ?? [],
      }).environments,
    }));
  const checks = entities
    .filter(e => e.kind === 'HealthCheck')
    .map((entity: Entity): ReconcilableCheck => {
      const spec = entity.spec as unknown as HealthCheckSpec;
      return {
        id: stringifyEntityRef(entity),
        source: { kind: 'gitops', entityRef: stringifyEntityRef(entity) },
        spec,
        ...resolveCheckTiming(spec),
      };
    });
  const result = desiredSlices({ checks, systems });
  const describeSlice = (s: {
    checkId: string;
    systemRef: string;
    environment: string;
  }) =>
    `${s.checkId.replace('healthcheck:default/', '')} ${s.systemRef.replace(
      'system:default/',
      '',
    )} ${s.environment}`;

  it('turns the nine demo checks into sixteen slices', () => {
    expect(result.slices.map(describeSlice).sort()).toEqual([
      'analytics-health analytics default',
      'card-network-sandbox payments staging',
      'checkout-health checkout canary',
      'checkout-health checkout production',
      'checkout-health checkout staging',
      'event-bus-broker messaging production',
      'event-bus-broker messaging staging',
      'payments-health payments production',
      'payments-health payments staging',
      'platform-health identity production',
      'platform-health identity staging',
      'platform-health messaging production',
      'platform-health messaging staging',
      'product-search-latency storefront production',
      'storefront-health storefront production',
      'storefront-health storefront staging',
    ]);
    expect(result.unresolvedSystems).toEqual([]);
  });

  it('holds the paused legacy SSO check apart', () => {
    expect(result.paused.map(describeSlice)).toEqual([
      'legacy-sso-login identity production',
    ]);
  });

  it('renders each slice its own demo target', () => {
    const canary = result.slices.find(
      s => describeSlice(s) === 'checkout-health checkout canary',
    );
    expect(canary).toMatchObject({
      id: 'healthcheck:healthcheck%3Adefault%2Fcheckout-health:system%3Adefault%2Fcheckout:canary',
      target: 'http://127.0.0.1:7010/canary/checkout/health',
      intervalMs: 10_000,
      timeoutMs: 2_000,
      type: 'http',
      thresholds: { failure: 2, success: 1 },
    });
  });

  it('carries the components each demo check targets', () => {
    const targets = (description: string) =>
      result.slices.find(s => describeSlice(s) === description)?.components;
    expect(targets('checkout-health checkout canary')).toEqual([
      'component:default/checkout-service',
      'component:default/payments-service',
    ]);
    expect(targets('platform-health messaging staging')).toEqual([
      'component:default/auth-service',
      'component:default/notification-service',
    ]);
    expect(targets('card-network-sandbox payments staging')).toBeUndefined();
  });

  it('gives every slice a distinct id', () => {
    const ids = result.slices.map(s => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
