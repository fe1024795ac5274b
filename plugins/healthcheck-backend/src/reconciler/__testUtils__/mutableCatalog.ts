import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';

/**
 * A catalog for tests whose entities change between calls, as a real one
 * does while it processes edits: each read sees the entities of that moment.
 * `put` bumps the entity's etag, as the catalog does when it changes.
 */
export function mutableCatalog(initial: Entity[]) {
  const entities = new Map<string, Entity>();
  let etag = 0;
  const put = (entity: Entity) => {
    const stored: Entity = {
      ...entity,
      metadata: {
        namespace: 'default',
        ...entity.metadata,
        etag: `etag-${++etag}`,
      },
    };
    entities.set(stringifyEntityRef(stored).toLowerCase(), stored);
  };
  initial.forEach(put);
  const current = () =>
    catalogServiceMock({ entities: [...entities.values()] });
  const catalog = {
    getEntities: (request, options) => current().getEntities(request, options),
    getEntitiesByRefs: (request, options) =>
      current().getEntitiesByRefs(request, options),
    getEntityByRef: (ref, options) => current().getEntityByRef(ref, options),
  } as Partial<CatalogService> as CatalogService;
  return {
    catalog,
    put,
    /** Changes an entity in place (a copy), as an edit in Git would. */
    edit(ref: string, change: (entity: Entity) => void) {
      const entity = entities.get(ref.toLowerCase());
      if (!entity) {
        throw new Error(`No entity ${ref} in the test catalog`);
      }
      const copy = structuredClone(entity);
      change(copy);
      put(copy);
    },
    remove(ref: string) {
      if (!entities.delete(ref.toLowerCase())) {
        throw new Error(`No entity ${ref} in the test catalog`);
      }
    },
    get(ref: string): Entity {
      return structuredClone(entities.get(ref.toLowerCase())!);
    },
  };
}
