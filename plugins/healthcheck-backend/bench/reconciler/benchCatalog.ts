/*
 * The bench's synthetic catalog and an indexed in-memory CatalogService over
 * it, cheap enough that a 60,000-slice reconcile measures the reconciler and
 * the database rather than the fake catalog.
 */
import { performance } from 'node:perf_hooks';
import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { JsonObject } from '@backstage/types';
import {
  HEALTHCHECK_API_VERSION,
  HEALTHCHECK_KIND,
} from '@vigil/plugin-healthcheck-common';

/** The ref of the i-th synthetic system. */
export function systemRefOf(index: number): string {
  return `system:default/system-${index}`;
}

/** The ref of the i-th synthetic system's http HealthCheck. */
export function httpCheckRefOf(index: number): string {
  return `healthcheck:default/system-${index}-http`;
}

/** N systems, each listing two environments and a member adding a third. */
export function syntheticCatalog(systemCount: number): Entity[] {
  const entities: Entity[] = [];
  for (let i = 0; i < systemCount; i++) {
    const name = `system-${i}`;
    entities.push({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'System',
      metadata: {
        name,
        annotations: { 'vigil.dev/environments': 'production,staging' },
      },
      spec: { owner: 'team' },
    });
    for (const [suffix, environment] of [
      ['web', undefined],
      ['canary', 'canary'],
    ] as const) {
      entities.push({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: {
          name: `${name}-${suffix}`,
          annotations: environment
            ? { 'vigil.dev/environment': environment }
            : undefined,
        },
        spec: { type: 'service', owner: 'team', system: name },
      });
    }
  }
  return entities;
}

/**
 * Two HealthCheck entities per system, as a team would commit them next to
 * its catalog-info.yaml: an http one with an override and a tcp one.
 */
export function syntheticChecks(systemCount: number): Entity[] {
  const checks: Entity[] = [];
  for (let i = 0; i < systemCount; i++) {
    const systems = [systemRefOf(i)];
    const http: JsonObject = {
      type: 'http',
      target:
        'https://{{ system.name }}.{{ environment.name }}.example.com/health',
      interval: '30s',
      timeout: '5s',
      config: { method: 'GET', headers: { Accept: 'application/json' } },
      environmentOverrides: {
        staging: { config: { headers: { Authorization: 'staging' } } },
      },
      conditions: ['[STATUS] == 200', '[BODY].status == UP'],
      thresholds: { failure: 2, success: 1 },
      systems,
      owner: 'team',
    };
    const tcp: JsonObject = {
      type: 'tcp',
      // The host ends in labels of its own: a placeholder may not pick it.
      target:
        'tcp://{{ system.name }}-db.{{ environment.name }}.example.com:5432',
      interval: '30s',
      timeout: '5s',
      conditions: ['[CONNECTED] == true'],
      systems,
      owner: 'team',
    };
    for (const [type, spec] of [
      ['http', http],
      ['tcp', tcp],
    ] as const) {
      checks.push({
        apiVersion: HEALTHCHECK_API_VERSION,
        kind: HEALTHCHECK_KIND,
        metadata: { name: `system-${i}-${type}` },
        spec,
      });
    }
  }
  return checks;
}

type GetEntitiesRequest = NonNullable<
  Parameters<CatalogService['getEntities']>[0]
>;
type FilterValue = string | symbol | Array<string | symbol>;
type Filter = Record<string, FilterValue>;

/** Filter keys answered from an index rather than by a scan. */
const INDEXED_KEYS = ['spec.systems', 'spec.system'] as const;

/**
 * A CatalogService holding entities in memory, indexed by kind, by ref and
 * by the (lower-cased) filter keys the reconciler uses, so that a query
 * costs what it returns. Matches filter values without regard to case, ORs
 * the objects of a filter array and ANDs the keys of one, as the catalog
 * does. `fields` is ignored: whole entities come back, the stored objects
 * themselves (the real catalog would parse fresh ones from JSON).
 *
 * Only `getEntities` and `getEntitiesByRefs` exist; they are all the
 * reconciler calls. `readMs` and `reads` add up the time spent in them.
 */
export class IndexedCatalog {
  readonly #byRef = new Map<string, Entity>();
  readonly #byKind = new Map<string, Set<Entity>>();
  readonly #byKey = new Map<string, Map<string, Set<Entity>>>(
    INDEXED_KEYS.map(key => [key, new Map<string, Set<Entity>>()]),
  );
  #etag = 0;
  readMs = 0;
  reads = 0;

  constructor(entities: Iterable<Entity>) {
    for (const entity of entities) {
      this.put(entity);
    }
  }

  /** Adds or replaces an entity, with a new etag, as the catalog would. */
  put(entity: Entity): void {
    const stored: Entity = {
      ...entity,
      metadata: {
        namespace: 'default',
        ...entity.metadata,
        etag: `etag-${++this.#etag}`,
      },
    };
    const ref = stringifyEntityRef(stored).toLowerCase();
    const previous = this.#byRef.get(ref);
    if (previous) {
      this.#unindex(previous);
    }
    this.#byRef.set(ref, stored);
    add(this.#byKind, stored.kind.toLowerCase(), stored);
    for (const key of INDEXED_KEYS) {
      for (const value of valuesAt(stored, key)) {
        add(this.#byKey.get(key)!, value, stored);
      }
    }
  }

  /** A copy of an entity, to edit and `put` back. */
  get(ref: string): Entity {
    const entity = this.#byRef.get(
      stringifyEntityRef(parseEntityRef(ref)).toLowerCase(),
    );
    if (!entity) {
      throw new Error(`No entity ${ref} in the bench catalog`);
    }
    return structuredClone(entity);
  }

  get size(): number {
    return this.#byRef.size;
  }

  /** The two methods the reconciler calls, as a CatalogService. */
  asCatalogService(): CatalogService {
    const service: Pick<CatalogService, 'getEntities' | 'getEntitiesByRefs'> = {
      getEntities: async request =>
        this.#timed(() => ({ items: this.#query(request) })),
      getEntitiesByRefs: async request =>
        this.#timed(() => ({
          items: request.entityRefs.map(ref => this.#byRefOrUndefined(ref)),
        })),
    };
    return service as CatalogService;
  }

  #timed<T>(fn: () => T): T {
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.readMs += performance.now() - start;
      this.reads += 1;
    }
  }

  #byRefOrUndefined(ref: string): Entity | undefined {
    try {
      return this.#byRef.get(
        stringifyEntityRef(parseEntityRef(ref)).toLowerCase(),
      );
    } catch {
      return undefined;
    }
  }

  #query(request: GetEntitiesRequest | undefined): Entity[] {
    const filter = request?.filter as Filter | Filter[] | undefined;
    if (!filter) {
      return [...this.#byRef.values()];
    }
    const filters = Array.isArray(filter) ? filter : [filter];
    if (filters.length === 1) {
      return [...this.#match(filters[0])];
    }
    const result = new Set<Entity>();
    for (const one of filters) {
      for (const entity of this.#match(one)) {
        result.add(entity);
      }
    }
    return [...result];
  }

  /** The entities one filter object matches: from its narrowest index. */
  #match(filter: Filter): Iterable<Entity> {
    const clauses = Object.entries(filter).map(([key, value]) => ({
      key,
      values: (Array.isArray(value) ? value : [value]).map(v =>
        typeof v === 'string' ? v.toLowerCase() : v,
      ),
    }));
    let candidates: Iterable<Entity> | undefined;
    let used: (typeof clauses)[number] | undefined;
    let smallest = Infinity;
    for (const clause of clauses) {
      const index =
        clause.key.toLowerCase() === 'kind'
          ? this.#byKind
          : this.#byKey.get(clause.key.toLowerCase());
      if (!index || clause.values.some(v => typeof v !== 'string')) {
        continue;
      }
      const sets = clause.values.map(v => index.get(v as string));
      const size = sets.reduce((sum, set) => sum + (set?.size ?? 0), 0);
      if (size < smallest) {
        smallest = size;
        used = clause;
        candidates =
          sets.length === 1
            ? sets[0] ?? []
            : new Set(sets.flatMap(set => (set ? [...set] : [])));
      }
    }
    const rest = clauses.filter(clause => clause !== used);
    const all = candidates ?? this.#byRef.values();
    if (rest.length === 0) {
      return all;
    }
    const matched: Entity[] = [];
    for (const entity of all) {
      if (rest.every(clause => matches(entity, clause.key, clause.values))) {
        matched.push(entity);
      }
    }
    return matched;
  }

  #unindex(entity: Entity) {
    this.#byKind.get(entity.kind.toLowerCase())?.delete(entity);
    for (const key of INDEXED_KEYS) {
      const index = this.#byKey.get(key)!;
      for (const value of valuesAt(entity, key)) {
        index.get(value)?.delete(entity);
      }
    }
  }
}

function add<K, V>(map: Map<K, Set<V>>, key: K, value: V) {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(value);
}

/** The lower-cased string values at a dotted path; arrays count each item. */
function valuesAt(entity: Entity, path: string): string[] {
  let value: unknown = entity;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') {
      return [];
    }
    value = (value as Record<string, unknown>)[part];
  }
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap(item =>
    typeof item === 'string' ? [item.toLowerCase()] : [],
  );
}

function matches(
  entity: Entity,
  key: string,
  values: Array<string | symbol>,
): boolean {
  const present = valuesAt(entity, key);
  // A symbol is CATALOG_FILTER_EXISTS: the key has any value.
  return values.some(v =>
    typeof v === 'string' ? present.includes(v) : present.length > 0,
  );
}
