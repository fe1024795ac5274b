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
import type { ObjectiveAdmission } from './ObjectiveAdmission';

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
 * system or of all, resolved, that the admission lets in (their owner may
 * name their system and check, and they are within the system's cap). The
 * catalog rejects invalid ones; one that slips through (an older
 * processor) is left out rather than failing the others.
 *
 * @internal
 */
export async function loadCatalogObjectives(options: {
  catalog: Pick<CatalogService, 'getEntities'>;
  credentials: BackstageCredentials;
  /** Which objectives may count at all, whoever reads them. */
  admission: Pick<ObjectiveAdmission, 'admitted'>;
  /** Only this system's (canonical ref); all when left out. */
  systemRef?: string;
  /** Only these systems' (canonical refs), with one catalog request. */
  systemRefs?: readonly string[];
}): Promise<CatalogObjective[]> {
  const only = options.systemRefs
    ? new Set(options.systemRefs)
    : options.systemRef && new Set([options.systemRef]);
  let systemFilter = {};
  if (only) {
    // How a spec may write the ref; resolving decides in the end.
    systemFilter = {
      'spec.system': [...only].flatMap(systemRef => {
        const { namespace, name } = parseEntityRef(systemRef);
        return [name, `${namespace}/${name}`, systemRef];
      }),
    };
  }
  const [{ items }, admitted] = await Promise.all([
    options.catalog.getEntities(
      { filter: { kind: SERVICE_LEVEL_OBJECTIVE_KIND, ...systemFilter } },
      { credentials: options.credentials },
    ),
    options.admission.admitted(),
  ]);
  const objectives: CatalogObjective[] = [];
  for (const entity of items) {
    const ref = stringifyEntityRef(entity).toLowerCase();
    const resolved = admitted.has(ref) ? tryResolve(entity) : undefined;
    if (resolved && (!only || only.has(resolved.systemRef))) {
      objectives.push({
        ref,
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
