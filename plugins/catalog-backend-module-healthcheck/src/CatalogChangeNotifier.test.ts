import { Entity } from '@backstage/catalog-model';
import { mockServices } from '@backstage/backend-test-utils';
import type { CatalogProcessorCache } from '@backstage/plugin-catalog-node';
import type { EventParams } from '@backstage/plugin-events-node';
import type { JsonValue } from '@backstage/types';
import { CATALOG_CHANGES_TOPIC } from '@vigil/plugin-healthcheck-node';
import { CatalogChangeNotifier } from './CatalogChangeNotifier';

const location = { type: 'url', target: 'https://git.example/catalog.yaml' };

/** The catalog's processor cache across runs: each run sees the last one's writes. */
function processorCache() {
  let kept: Record<string, JsonValue> = {};
  let written: Record<string, JsonValue> = {};
  const cache: CatalogProcessorCache = {
    async get<T extends JsonValue>(key: string) {
      return kept[key] as T | undefined;
    },
    async set(key, value) {
      written[key] = value;
    },
  };
  return {
    cache,
    endRun() {
      kept = written;
      written = {};
    },
  };
}

function setup() {
  const published: EventParams[] = [];
  const events = {
    publish: jest.fn(async (params: EventParams) => {
      published.push(params);
    }),
    subscribe: jest.fn(),
  };
  const notifier = new CatalogChangeNotifier({
    events,
    logger: mockServices.logger.mock(),
  });
  const caches = new Map<string, ReturnType<typeof processorCache>>();
  async function process(entity: Entity) {
    const ref = `${entity.kind}:${entity.metadata.name}`;
    const run = caches.get(ref) ?? processorCache();
    caches.set(ref, run);
    const out = await notifier.postProcessEntity(
      entity,
      location,
      () => {},
      run.cache,
    );
    run.endRun();
    expect(out).toBe(entity);
  }
  return { process, published, events };
}

function component(system: string, extra: Partial<Entity['metadata']> = {}) {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: { name: 'api', ...extra },
    spec: { type: 'service', owner: 'team-a', system },
  } satisfies Entity;
}

describe('CatalogChangeNotifier', () => {
  it('says which system a new entity shapes, once, and nothing while it stays the same', async () => {
    const { process, published } = setup();
    await process(component('payments'));
    await process(component('payments'));
    // The catalog sets these; they are not a change of the entity.
    await process(component('payments', { uid: 'u-1', etag: 'e-2' } as any));
    expect(published).toEqual([
      {
        topic: CATALOG_CHANGES_TOPIC,
        eventPayload: {
          entityRef: 'component:default/api',
          systems: ['system:default/payments'],
        },
      },
    ]);
  });

  it('names the old system and the new one when a component moves, and any change of content', async () => {
    const { process, published } = setup();
    await process(component('payments'));
    await process(component('search'));
    await process(
      component('search', {
        annotations: { 'vigil.dev/environments': 'prod' },
      }),
    );
    expect(published.map(p => p.eventPayload)).toEqual([
      {
        entityRef: 'component:default/api',
        systems: ['system:default/payments'],
      },
      {
        entityRef: 'component:default/api',
        systems: ['system:default/payments', 'system:default/search'],
      },
      {
        entityRef: 'component:default/api',
        systems: ['system:default/search'],
      },
    ]);
  });

  it('names a check’s systems, a system itself, and every system for an Environment or a check naming too many', async () => {
    const { process, published } = setup();
    await process({
      apiVersion: 'vigil.dev/v1alpha1',
      kind: 'HealthCheck',
      metadata: { name: 'http', namespace: 'team-a' },
      spec: { type: 'http', systems: ['payments', 'system:default/search'] },
    });
    await process({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'System',
      metadata: { name: 'Payments' },
      spec: { owner: 'team-a' },
    });
    await process({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Environment',
      metadata: { name: 'prod' },
      spec: {},
    });
    await process({
      apiVersion: 'vigil.dev/v1alpha1',
      kind: 'HealthCheck',
      metadata: { name: 'wide' },
      spec: {
        type: 'http',
        systems: Array.from({ length: 101 }, (_, i) => `s${i}`),
      },
    });
    expect(published.map(p => p.eventPayload)).toEqual([
      {
        entityRef: 'healthcheck:team-a/http',
        systems: ['system:team-a/payments', 'system:default/search'],
      },
      {
        entityRef: 'system:default/payments',
        systems: ['system:default/payments'],
      },
      { entityRef: 'environment:default/prod', systems: [], allSystems: true },
      { entityRef: 'healthcheck:default/wide', systems: [], allSystems: true },
    ]);
  });

  it('says nothing of kinds that shape no slice, and keeps processing when publishing fails', async () => {
    const { process, published, events } = setup();
    await process({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Group',
      metadata: { name: 'team-a' },
      spec: { type: 'team', children: [] },
    });
    expect(published).toEqual([]);
    events.publish.mockRejectedValueOnce(new Error('bus down'));
    await process(component('payments'));
    expect(events.publish).toHaveBeenCalledTimes(1);
  });
});
