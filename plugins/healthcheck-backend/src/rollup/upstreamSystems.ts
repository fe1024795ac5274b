import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  Entity,
  parseEntityRef,
  RELATION_DEPENDS_ON,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';

/**
 * The systems a system depends on: the targets of `dependsOn` of the system
 * and of its members, each mapped to its own system (a System target is
 * itself; a Component or Resource target is the system it belongs to). The
 * system itself is left out. Canonical (lower-case) refs, sorted.
 * @internal
 */
export async function upstreamSystems(options: {
  catalog: CatalogService;
  credentials: BackstageCredentials;
  systemRef: string;
}): Promise<string[]> {
  const { catalog, credentials } = options;
  const self = options.systemRef.toLowerCase();
  const { name, namespace } = parseEntityRef(self);
  const [system, members] = await Promise.all([
    catalog.getEntityByRef(self, { credentials }),
    catalog.getEntities(
      {
        filter: [
          {
            kind: 'Component',
            'spec.system': [name, `${namespace}/${name}`, self],
          },
          {
            kind: 'Resource',
            'spec.system': [name, `${namespace}/${name}`, self],
          },
        ],
        fields: ['kind', 'metadata', 'spec.system', 'relations'],
      },
      { credentials },
    ),
  ]);
  const targets = new Set<string>();
  for (const entity of [...(system ? [system] : []), ...members.items]) {
    for (const relation of entity.relations ?? []) {
      if (relation.type === RELATION_DEPENDS_ON) {
        targets.add(relation.targetRef.toLowerCase());
      }
    }
  }
  const systems = new Set<string>();
  const lookups: string[] = [];
  for (const target of targets) {
    if (parseEntityRef(target).kind.toLowerCase() === 'system') {
      systems.add(target);
    } else {
      lookups.push(target);
    }
  }
  if (lookups.length > 0) {
    const found = await catalog.getEntitiesByRefs(
      { entityRefs: lookups, fields: ['kind', 'metadata', 'spec.system'] },
      { credentials },
    );
    for (const entity of found.items) {
      const ref = entity && systemOfMember(entity);
      if (ref) {
        systems.add(ref);
      }
    }
  }
  systems.delete(self);
  return [...systems].sort();
}

/**
 * The system each of some components belongs to (its `spec.system`), as the
 * catalog says today: canonical component ref -> canonical system ref. A
 * component the catalog lacks, or that names no system, is left out.
 * @internal
 */
export async function systemsOfComponents(options: {
  catalog: CatalogService;
  credentials: BackstageCredentials;
  componentRefs: readonly string[];
}): Promise<Map<string, string>> {
  const { catalog, credentials } = options;
  const refs = [...new Set(options.componentRefs.map(r => r.toLowerCase()))];
  const systems = new Map<string, string>();
  if (refs.length === 0) {
    return systems;
  }
  const found = await catalog.getEntitiesByRefs(
    { entityRefs: refs, fields: ['kind', 'metadata', 'spec.system'] },
    { credentials },
  );
  for (const entity of found.items) {
    const system = entity && systemOfMember(entity);
    if (entity && system) {
      systems.set(stringifyEntityRef(entity).toLowerCase(), system);
    }
  }
  return systems;
}

function systemOfMember(entity: Entity): string | undefined {
  const system = entity.spec?.system;
  if (typeof system !== 'string' || !system) {
    return undefined;
  }
  try {
    return stringifyEntityRef(
      parseEntityRef(system, {
        defaultKind: 'system',
        defaultNamespace: entity.metadata.namespace ?? 'default',
      }),
    ).toLowerCase();
  } catch {
    return undefined;
  }
}
