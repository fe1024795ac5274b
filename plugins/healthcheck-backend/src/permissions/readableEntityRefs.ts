import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';

/**
 * Of some entity refs, those the catalog lets the caller read, in one
 * request: the refs as given (pass them canonical, lower-case), so the
 * result compares with them.
 * @internal
 */
export async function readableEntityRefs(
  catalog: Pick<CatalogService, 'getEntitiesByRefs'>,
  refs: Iterable<string | undefined>,
  credentials: BackstageCredentials,
): Promise<Set<string>> {
  const entityRefs = [
    ...new Set([...refs].filter((ref): ref is string => ref !== undefined)),
  ];
  if (entityRefs.length === 0) {
    return new Set();
  }
  const { items } = await catalog.getEntitiesByRefs(
    { entityRefs, fields: ['kind', 'metadata.name', 'metadata.namespace'] },
    { credentials },
  );
  return new Set(entityRefs.filter((_ref, index) => items[index]));
}
