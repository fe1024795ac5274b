import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  ResolvedServiceLevelObjective,
  resolveServiceLevelObjective,
  SERVICE_LEVEL_OBJECTIVE_KIND,
} from '@vigil/plugin-healthcheck-common';

/**
 * An objective as declared in the catalog, resolved.
 *
 * @internal
 */
export interface CatalogObjective {
  /** Canonical (lower-case) ServiceLevelObjective entity ref. */
  ref: string;
  /** The entity's `metadata.title`, the objective's `displayName`, or its name. */
  title: string;
  objective: ResolvedServiceLevelObjective;
}

/**
 * The ServiceLevelObjective entities the credentials may read, of one
 * system or of all, resolved. The catalog rejects invalid ones; one that
 * slips through (an older processor) is left out rather than failing the
 * others.
 *
 * @internal
 */
export async function loadCatalogObjectives(options: {
  catalog: Pick<CatalogService, 'getEntities'>;
  credentials: BackstageCredentials;
  /** Only this system's (canonical ref); all when left out. */
  systemRef?: string;
}): Promise<CatalogObjective[]> {
  let systemFilter = {};
  if (options.systemRef) {
    const { namespace, name } = parseEntityRef(options.systemRef);
    // How a spec may write the ref; resolving decides in the end.
    systemFilter = {
      'spec.system': [name, `${namespace}/${name}`, options.systemRef],
    };
  }
  const { items } = await options.catalog.getEntities(
    { filter: { kind: SERVICE_LEVEL_OBJECTIVE_KIND, ...systemFilter } },
    { credentials: options.credentials },
  );
  const objectives: CatalogObjective[] = [];
  for (const entity of items) {
    const resolved = tryResolve(entity);
    if (
      resolved &&
      (!options.systemRef || resolved.systemRef === options.systemRef)
    ) {
      objectives.push({
        ref: stringifyEntityRef(entity).toLowerCase(),
        title:
          entity.metadata.title ?? resolved.displayName ?? entity.metadata.name,
        objective: resolved,
      });
    }
  }
  return objectives.sort((a, b) => (a.ref < b.ref ? -1 : 1));
}

function tryResolve(entity: Entity): ResolvedServiceLevelObjective | undefined {
  try {
    return resolveServiceLevelObjective(entity.spec, {
      defaultNamespace: entity.metadata.namespace,
    });
  } catch {
    return undefined;
  }
}
