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
    ).toEqual({
      slices: [],
      paused: [],
      unresolvedSystems: [],
      refused: [],
    });
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
              target:
                'https://staging-{{ system.name }}.internal.example.com/health',
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
        'https://staging-shop.internal.example.com/health',
        { headers: { Authorization: 'staging', Accept: 'json' } },
      ],
    ]);
  });

  describe("keeping other teams' values from deciding where a probe goes", () => {
    it('refuses the slice of an environment that is no environment name, and derives the others', () => {
      const { slices, refused } = desiredSlices({
        checks: [
          check('web', {
            target:
              'https://{{ environment.name }}.payments.example.com/health',
          }),
        ],
        systems: [
          {
            ...shop,
            environments: ['production', 'evil.example/x?', 'x@evil.example#'],
          },
        ],
      });
      expect(slices.map(s => s.target)).toEqual([
        'https://production.payments.example.com/health',
      ]);
      expect(refused.map(r => [r.environment, r.reason])).toEqual([
        [
          'evil.example/x?',
          expect.stringMatching(
            /^"evil\.example\/x\?" is not an environment name: "\." is not allowed; /,
          ),
        ],
        [
          'x@evil.example#',
          expect.stringMatching(
            /^"x@evil\.example#" is not an environment name/,
          ),
        ],
      ]);
    });

    it('refuses the slices of a system whose name cannot be a host label, naming it, and keeps it in a path', () => {
      const shopEu = {
        ref: 'system:default/shop.eu',
        name: 'shop.eu',
        environments: ['production'],
      };
      const { slices, refused } = desiredSlices({
        checks: [
          check('host', {
            systems: ['shop.eu', 'shop'],
            target: 'https://{{ system.name }}.apps.example.com/health',
            environments: ['production'],
          }),
          check('path', {
            systems: ['shop.eu'],
            target: 'https://status.example.com/{{ system.name }}/health',
          }),
        ],
        systems: [shop, shopEu],
      });
      expect(slices.map(s => [s.checkId, s.target])).toEqual([
        ['host', 'https://shop.apps.example.com/health'],
        ['path', 'https://status.example.com/shop.eu/health'],
      ]);
      expect(refused).toEqual([
        {
          id: 'healthcheck:host:system%3Adefault%2Fshop.eu:production',
          checkId: 'host',
          systemRef: 'system:default/shop.eu',
          environment: 'production',
          reason:
            'the system\'s name "shop.eu" cannot go into its target: {{ system.name }} is in the host, where a value must be one DNS label (1 to 63 letters, digits and "-", no "." or "_")',
        },
      ]);
    });

    it('refuses every slice of a check whose host a placeholder picks, unless an operator allows it', () => {
      const checks = [
        check('web', {
          target: 'https://{{ environment.name }}.internal/health',
        }),
      ];
      const refusedByDefault = desiredSlices({ checks, systems: [shop] });
      expect(refusedByDefault.slices).toEqual([]);
      expect(refusedByDefault.refused.map(r => r.reason)).toEqual([
        expect.stringMatching(
          /^its target template cannot be used: the host "\{\{ environment\.name \}\}\.internal" is picked by a placeholder/,
        ),
        expect.stringMatching(/^its target template cannot be used/),
      ]);
      const allowed = desiredSlices({
        checks,
        systems: [shop],
        targets: { allowPlaceholderHosts: true },
      });
      expect(allowed.slices.map(s => s.target)).toEqual([
        'https://production.internal/health',
        'https://staging.internal/health',
      ]);
      expect(allowed.refused).toEqual([]);
    });

    it("reads each target as its probe type's: host:port for tcp", () => {
      const { slices, refused } = desiredSlices({
        checks: [
          check('db', {
            type: 'tcp',
            target:
              'tcp://{{ system.name }}-db.{{ environment.name }}.example.com:5432',
          }),
          check('port', {
            type: 'tcp',
            target: 'db.example.com:{{ environment.name }}',
            environments: ['production'],
          }),
        ],
        systems: [shop],
      });
      expect(slices.map(s => s.target)).toEqual([
        'tcp://shop-db.production.example.com:5432',
        'tcp://shop-db.staging.example.com:5432',
      ]);
      expect(refused.map(r => r.reason)).toEqual([
        'its target template cannot be used: {{ environment.name }} at position 15 is in the port; write the port in the template',
      ]);
    });

    it('leaves paused slices paused, whatever their target', () => {
      const { paused, refused } = desiredSlices({
        checks: [
          check('web', { paused: true, target: 'https://{{ system.name }}/' }),
        ],
        systems: [shop],
      });
      expect(paused).toHaveLength(2);
      expect(refused).toEqual([]);
    });
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
      ['type', { type: 'grpc' }],
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

  it('turns the ten demo checks into seventeen slices, refusing none', () => {
    expect(result.slices.map(describeSlice).sort()).toEqual([
      'analytics-export analytics default',
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
    expect(result.refused).toEqual([]);
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
