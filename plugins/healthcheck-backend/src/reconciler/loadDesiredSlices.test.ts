import {
  probeTypeLookup,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { builtinProbeTypeDeclarations } from '@vigil/plugin-healthcheck-node';
import { mockCredentials } from '@backstage/backend-test-utils';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import {
  decodeSliceId,
  HEALTHCHECK_API_VERSION,
} from '@vigil/plugin-healthcheck-common';
import { readDemoCatalog } from './__testUtils__/demoCatalog';
import { loadDesiredSlices } from './loadDesiredSlices';

describe('loadDesiredSlices', () => {
  it('derives one slice per check, system and environment of the demo catalog', async () => {
    const result = await loadDesiredSlices({
      catalog: catalogServiceMock({ entities: readDemoCatalog() }),
      credentials: mockCredentials.service(),
      listStoredChecks: async () => [],
    });

    const keys = result.slices
      .map(slice => decodeSliceId(slice.id))
      .map(k => `${k.checkId} ${k.systemRef} ${k.environment}`);
    expect(keys).toContain(
      'healthcheck:default/checkout-health system:default/checkout canary',
    );
    expect(keys).toContain(
      'healthcheck:default/analytics-health system:default/analytics default',
    );
    expect(keys).toHaveLength(17);
    expect(result.paused.map(p => p.checkId)).toEqual([
      'healthcheck:default/legacy-sso-login',
    ]);

    const payments = result.slices.find(
      s =>
        s.checkId === 'healthcheck:default/payments-health' &&
        s.environment === 'staging',
    );
    expect(payments).toMatchObject({
      type: 'http',
      target: 'http://127.0.0.1:7010/staging/payments/health',
      intervalMs: 10_000,
      timeoutMs: 2_000,
    });
  });

  it('asks the catalog about many systems a few at a time, and finds each check once', async () => {
    const systems = Array.from({ length: 45 }, (_, i) => `system-${i}`);
    const entities = [
      ...systems.map(name => ({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'System',
        metadata: { name, namespace: 'default' },
        spec: { owner: 'team' },
      })),
      {
        apiVersion: HEALTHCHECK_API_VERSION,
        kind: 'HealthCheck',
        metadata: { name: 'fleet', namespace: 'default' },
        // Names systems of the first and the last request.
        spec: {
          type: 'http',
          target: 'http://127.0.0.1:7010/{{ system.name }}',
          systems: ['system-0', 'system-44'],
          owner: 'team',
        },
      },
    ];
    const catalog = catalogServiceMock({ entities });
    const getEntities = jest.spyOn(catalog, 'getEntities');

    const result = await loadDesiredSlices({
      catalog,
      credentials: mockCredentials.service(),
      listStoredChecks: async () => [],
      systemRefs: systems.map(name => `system:default/${name}`),
    });

    const filterValues = getEntities.mock.calls.map(
      ([request]) => JSON.stringify(request?.filter ?? '').length,
    );
    expect(Math.max(...filterValues)).toBeLessThan(5_000);
    expect(
      result.slices.map(slice => decodeSliceId(slice.id).systemRef).sort(),
    ).toEqual(['system:default/system-0', 'system:default/system-44']);
  });

  it('adds the checks created through the API', async () => {
    const result = await loadDesiredSlices({
      catalog: catalogServiceMock({ entities: readDemoCatalog() }),
      credentials: mockCredentials.service(),
      listStoredChecks: async () => [
        {
          id: 'identity-login-page',
          spec: {
            type: 'http',
            target:
              'http://127.0.0.1:7010/{{ environment.name }}/identity/health',
            interval: '30s',
            systems: ['system:default/identity'],
          },
        },
      ],
    });

    const apiSlices = result.slices.filter(
      s => s.checkId === 'identity-login-page',
    );
    expect(apiSlices.map(s => s.environment).sort()).toEqual([
      'production',
      'staging',
    ]);
  });

  it('runs nowhere a check that fails validation, and says why, leaving the others', async () => {
    const catalogEntities = readDemoCatalog();
    const paymentsCheck = catalogEntities.find(
      e => e.kind === 'HealthCheck' && e.metadata.name === 'payments-health',
    )!;
    // As a catalog entity written before today's bounds could hold it.
    paymentsCheck.spec = {
      ...paymentsCheck.spec,
      config: { maxBodyBytes: 4_000_000_000 },
    };
    const result = await loadDesiredSlices({
      catalog: catalogServiceMock({ entities: catalogEntities }),
      credentials: mockCredentials.service(),
      listStoredChecks: async () => [
        {
          id: 'broken-row',
          spec: { type: 'smtp', target: 'x', interval: 'soon', systems: ['a'] },
        },
      ],
      validateSpec: (spec, { defaultNamespace }) =>
        validateHealthCheckSpec(spec, {
          probeTypes: probeTypeLookup(builtinProbeTypeDeclarations()),
          defaultNamespace,
        }),
    });

    expect(result.invalidChecks).toEqual([
      {
        checkId: 'healthcheck:default/payments-health',
        problems: ['spec.config.maxBodyBytes: must be <= 16777216'],
      },
      {
        checkId: 'broken-row',
        problems: [
          expect.stringContaining('spec.interval: "soon" is not a duration'),
          'spec.type: unknown probe type "smtp"; the known types are dns, http, tcp, tls',
        ],
      },
    ]);
    const checkIds = new Set(result.slices.map(s => s.checkId));
    expect(checkIds.has('healthcheck:default/payments-health')).toBe(false);
    expect(checkIds.has('broken-row')).toBe(false);
    expect(checkIds.has('healthcheck:default/checkout-health')).toBe(true);
  });

  describe("keeps other teams' entities from adding environments or moving probes", () => {
    const intruder = {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: {
        name: 'storefront-widget',
        namespace: 'default',
        annotations: { 'vigil.dev/environment': 'prod' },
      },
      spec: {
        type: 'service',
        owner: 'group:default/storefront-team',
        system: 'checkout',
      },
    };
    const keysOf = (result: { slices: Array<{ id: string }> }) =>
      result.slices
        .map(slice => decodeSliceId(slice.id))
        .filter(k => k.systemRef === 'system:default/checkout')
        .map(k => k.environment)
        .sort();

    it.each([undefined, ['system:default/checkout']])(
      'refuses an environment a member of another team adds, and names the member (systems: %j)',
      async systemRefs => {
        const result = await loadDesiredSlices({
          catalog: catalogServiceMock({
            entities: [...readDemoCatalog(), intruder],
          }),
          credentials: mockCredentials.service(),
          listStoredChecks: async () => [],
          systemRefs,
        });
        // canary comes from checkout-service-canary, which payments-team owns.
        expect(keysOf(result)).toEqual(['canary', 'production', 'staging']);
        expect(result.environmentProblems).toEqual([
          expect.objectContaining({
            entityRef: 'component:default/storefront-widget',
            systemRef: 'system:default/checkout',
            environment: 'prod',
            message: expect.stringContaining(
              'vigil.dev/environment on component:default/storefront-widget would add environment "prod" to system:default/checkout, but component:default/storefront-widget is owned by group:default/storefront-team and system:default/checkout is owned by group:default/payments-team',
            ),
          }),
        ]);
      },
    );

    it('takes it with healthcheck.environments.fromMembers: any', async () => {
      const result = await loadDesiredSlices({
        catalog: catalogServiceMock({
          entities: [...readDemoCatalog(), intruder],
        }),
        credentials: mockCredentials.service(),
        listStoredChecks: async () => [],
        settings: {
          environmentsFromMembers: 'any',
          allowPlaceholderHosts: false,
          checksFromCatalog: 'owner',
        },
      });
      expect(keysOf(result)).toEqual([
        'canary',
        'prod',
        'production',
        'staging',
      ]);
    });

    it('reports an Environment entity whose name is no environment name', async () => {
      const result = await loadDesiredSlices({
        catalog: catalogServiceMock({
          entities: [
            ...readDemoCatalog(),
            ...['production', 'staging', 'canary', 'default', 'eu_west'].map(
              name => ({
                apiVersion: 'backstage.io/v1alpha1',
                kind: 'Environment',
                metadata: { name, namespace: 'default' },
              }),
            ),
          ],
        }),
        credentials: mockCredentials.service(),
        listStoredChecks: async () => [],
      });
      expect(result.environmentProblems.map(p => p.entityRef)).toEqual([
        'environment:default/eu_west',
      ]);
      expect(result.slices).toHaveLength(17);
    });

    it('refuses the slices of a stored check whose host a placeholder picks, unless configured', async () => {
      const load = (allowPlaceholderHosts: boolean) =>
        loadDesiredSlices({
          catalog: catalogServiceMock({ entities: readDemoCatalog() }),
          credentials: mockCredentials.service(),
          listStoredChecks: async () => [
            {
              id: 'by-name',
              spec: {
                type: 'http',
                target: 'https://{{ system.name }}/health',
                systems: ['system:default/identity'],
              },
            },
          ],
          settings: {
            environmentsFromMembers: 'owner',
            allowPlaceholderHosts,
            checksFromCatalog: 'owner',
          },
        });
      const refused = await load(false);
      expect(refused.slices.filter(s => s.checkId === 'by-name')).toEqual([]);
      expect(refused.refused.map(r => [r.checkId, r.environment])).toEqual([
        ['by-name', 'production'],
        ['by-name', 'staging'],
      ]);
      const allowed = await load(true);
      expect(
        allowed.slices.filter(s => s.checkId === 'by-name').map(s => s.target),
      ).toEqual(['https://identity/health', 'https://identity/health']);
    });
  });

  it('attaches a HealthCheck entity only to systems its owner owns, unless told otherwise', async () => {
    const entities = [
      ...['payments', 'shop'].map(name => ({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'System',
        metadata: { name, namespace: 'default' },
        spec: { owner: `${name}-team` },
      })),
      {
        apiVersion: HEALTHCHECK_API_VERSION,
        kind: 'HealthCheck',
        metadata: { name: 'pager', namespace: 'default' },
        // The shop team names the payments system too, to page its team.
        spec: {
          type: 'http',
          target: 'http://127.0.0.1:7010/{{ system.name }}',
          systems: ['payments', 'shop'],
          owner: 'group:default/shop-team',
        },
      },
    ];
    const load = (checksFromCatalog: 'owner' | 'any') =>
      loadDesiredSlices({
        catalog: catalogServiceMock({ entities }),
        credentials: mockCredentials.service(),
        listStoredChecks: async () => [],
        settings: {
          environmentsFromMembers: 'owner',
          allowPlaceholderHosts: false,
          checksFromCatalog,
        },
      });

    const strict = await load('owner');
    expect(strict.slices.map(slice => slice.systemRef)).toEqual([
      'system:default/shop',
    ]);
    expect(strict.refused).toEqual([
      expect.objectContaining({
        systemRef: 'system:default/payments',
        reason:
          "healthcheck:default/pager is owned by group:default/shop-team and system:default/payments by group:default/payments-team; a HealthCheck entity monitors only systems its owner owns (healthcheck.checks.fromCatalog: owner). Give the check spec.owner group:default/payments-team, or let the system's owner declare it",
      }),
    ]);
    const open = await load('any');
    expect(open.slices.map(slice => slice.systemRef).sort()).toEqual([
      'system:default/payments',
      'system:default/shop',
    ]);
  });
});
