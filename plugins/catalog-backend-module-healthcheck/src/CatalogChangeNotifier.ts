import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import type {
  CatalogProcessor,
  CatalogProcessorCache,
  CatalogProcessorEmit,
  LocationSpec,
} from '@backstage/plugin-catalog-node';
import type { EventsService } from '@backstage/plugin-events-node';
import type { LoggerService } from '@backstage/backend-plugin-api';
import { HEALTHCHECK_KIND } from '@vigil/plugin-healthcheck-common';
import {
  CATALOG_CHANGES_TOPIC,
  CatalogChangeEvent,
  MAX_SYSTEMS_PER_CHANGE,
} from '@vigil/plugin-healthcheck-node';
import stableStringify from 'fast-json-stable-stringify';
import { createHash } from 'node:crypto';

const CACHE_KEY = 'vigil-slice-shape';

/** What the processor remembers of an entity between two processing runs. */
type SeenShape = {
  digest: string;
  systems: string[];
};

/**
 * Says on the events service which systems an entity's change touches, as
 * the catalog processes it, so Vigil re-derives their slices in seconds
 * rather than at its next poll (Backstage 1.55's catalog publishes no change
 * events). It remembers a digest of each System, Component, Resource,
 * HealthCheck and Environment in the processor cache and publishes only when
 * the digest moved: the catalog re-processes every entity every few minutes,
 * and an unchanged one says nothing. A Component that moved names its old
 * system and its new one. Deletions are not seen here; Vigil's poll finds
 * them.
 * @internal
 */
export class CatalogChangeNotifier implements CatalogProcessor {
  readonly #events: EventsService;
  readonly #logger: LoggerService;

  constructor(options: { events: EventsService; logger: LoggerService }) {
    this.#events = options.events;
    this.#logger = options.logger;
  }

  getProcessorName(): string {
    return 'VigilCatalogChangeNotifier';
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    _emit: CatalogProcessorEmit,
    cache: CatalogProcessorCache,
  ): Promise<Entity> {
    const shape = sliceShapeOf(entity);
    if (!shape) {
      return entity;
    }
    const seen = await cache.get<SeenShape>(CACHE_KEY);
    // Rewritten every run: the catalog keeps only what this run set.
    await cache.set<SeenShape>(CACHE_KEY, shape);
    if (seen?.digest === shape.digest) {
      return entity;
    }
    const systems = [...new Set([...(seen?.systems ?? []), ...shape.systems])];
    const allSystems =
      entity.kind.toLowerCase() === 'environment' ||
      systems.length > MAX_SYSTEMS_PER_CHANGE;
    const change: CatalogChangeEvent = {
      entityRef: stringifyEntityRef(entity).toLowerCase(),
      systems: allSystems ? [] : systems,
      ...(allSystems ? { allSystems } : {}),
    };
    try {
      await this.#events.publish({
        topic: CATALOG_CHANGES_TOPIC,
        eventPayload: change,
      });
    } catch (error) {
      // Vigil's poll finds the change later; processing goes on.
      this.#logger.warn(
        `Could not publish the change of ${change.entityRef} to Vigil: ${error}`,
      );
    }
    return entity;
  }
}

const SYSTEM_MEMBER_KINDS = new Set(['component', 'resource']);

/**
 * The digest of what the entity is, and the systems it shapes; `undefined`
 * for kinds that shape no slice. Volatile fields the catalog sets are left
 * out of the digest.
 */
export function sliceShapeOf(entity: Entity): SeenShape | undefined {
  const kind = entity.kind.toLowerCase();
  const namespace = entity.metadata.namespace ?? 'default';
  let systems: string[];
  if (kind === 'system') {
    systems = [stringifyEntityRef(entity).toLowerCase()];
  } else if (SYSTEM_MEMBER_KINDS.has(kind)) {
    systems = systemRefs([entity.spec?.system], namespace);
  } else if (kind === HEALTHCHECK_KIND.toLowerCase()) {
    const named = entity.spec?.systems;
    systems = systemRefs(Array.isArray(named) ? named : [], namespace);
  } else if (kind === 'environment') {
    systems = [];
  } else {
    return undefined;
  }
  const {
    uid: _uid,
    etag: _etag,
    generation: _generation,
    ...metadata
  } = entity.metadata as Entity['metadata'] & { generation?: unknown };
  const {
    relations: _relations,
    status: _status,
    ...rest
  } = entity as Entity & {
    status?: unknown;
  };
  const digest = createHash('sha256')
    .update(stableStringify({ ...rest, metadata }))
    .digest('base64url');
  return { digest, systems };
}

function systemRefs(written: unknown[], namespace: string): string[] {
  const refs = new Set<string>();
  for (const ref of written) {
    if (typeof ref !== 'string') {
      continue;
    }
    try {
      refs.add(
        stringifyEntityRef(
          parseEntityRef(ref, {
            defaultKind: 'system',
            defaultNamespace: namespace,
          }),
        ).toLowerCase(),
      );
    } catch {
      // A malformed ref shapes no slice; the HealthCheck processor reports it.
    }
  }
  return [...refs];
}
