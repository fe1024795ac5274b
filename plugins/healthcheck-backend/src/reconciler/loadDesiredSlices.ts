import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  ANNOTATION_LOCATION,
  ANNOTATION_SOURCE_LOCATION,
} from '@backstage/catalog-model';
import {
  HEALTHCHECK_KIND,
  HealthCheckSpec,
  isHealthCheckEntity,
  resolveCheckTiming,
} from '@vigil/plugin-healthcheck-common';
import {
  desiredSlices,
  DesiredSliceSet,
  ReconcilableCheck,
  SystemEnvironments,
} from './desiredSlices';
import {
  EnvironmentProblem,
  groupMembersBySystem,
  resolveEnvironments,
} from './resolveEnvironments';

/** The catalog fields the reconciler reads; the rest is not fetched. */
const SYSTEM_FIELDS = [
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.annotations',
];
const MEMBER_FIELDS = [...SYSTEM_FIELDS, 'spec.system'];

/** Everything a full reconcile derives, with what it found wrong on the way. */
export interface LoadedDesiredSlices extends DesiredSliceSet {
  environmentProblems: EnvironmentProblem[];
}

/**
 * Reads what should exist, from the catalog (systems, their members and
 * environments, HealthCheck entities) and from the plugin's own checks, and
 * derives the desired slices. The I/O edge of the reconciler; the deciding
 * is done by the pure functions it calls.
 */
export async function loadDesiredSlices(options: {
  catalog: CatalogService;
  credentials: BackstageCredentials;
  listStoredChecks: () => Promise<Array<{ id: string; spec: object }>>;
}): Promise<LoadedDesiredSlices> {
  const { catalog, credentials } = options;
  const [checkEntities, systems, members, environmentEntities, stored] =
    await Promise.all([
      catalog.getEntities(
        { filter: { kind: HEALTHCHECK_KIND } },
        { credentials },
      ),
      catalog.getEntities(
        { filter: { kind: 'System' }, fields: SYSTEM_FIELDS },
        { credentials },
      ),
      catalog.getEntities(
        {
          filter: [{ kind: 'Component' }, { kind: 'Resource' }],
          fields: MEMBER_FIELDS,
        },
        { credentials },
      ),
      catalog.getEntities(
        { filter: { kind: 'Environment' }, fields: ['metadata.name'] },
        { credentials },
      ),
      options.listStoredChecks(),
    ]);

  const checks: ReconcilableCheck[] = [
    ...checkEntities.items.filter(isHealthCheckEntity).map(entity => {
      const spec = entity.spec as unknown as HealthCheckSpec;
      const annotations = entity.metadata.annotations ?? {};
      return {
        id: stringifyEntityRef(entity),
        source: {
          kind: 'gitops' as const,
          entityRef: stringifyEntityRef(entity),
          location:
            annotations[ANNOTATION_SOURCE_LOCATION] ??
            annotations[ANNOTATION_LOCATION],
        },
        spec,
        ...resolveCheckTiming(spec),
      };
    }),
    ...stored.map(check => {
      const spec = check.spec as unknown as HealthCheckSpec;
      return {
        id: check.id,
        source: { kind: 'api' as const },
        spec,
        ...resolveCheckTiming(spec),
      };
    }),
  ];

  const vocabulary = environmentEntities.items.map(e => e.metadata.name);
  const membersBySystem = groupMembersBySystem(members.items);
  const environmentProblems: EnvironmentProblem[] = [];
  const systemEnvironments: SystemEnvironments[] = systems.items.map(
    (system: Entity) => {
      const ref = stringifyEntityRef(system);
      const resolved = resolveEnvironments({
        system,
        members: membersBySystem.get(ref) ?? [],
        environmentVocabulary: vocabulary.length > 0 ? vocabulary : undefined,
      });
      environmentProblems.push(...resolved.problems);
      return {
        ref,
        name: system.metadata.name,
        environments: resolved.environments,
      };
    },
  );

  return {
    ...desiredSlices({ checks, systems: systemEnvironments }),
    environmentProblems,
  };
}
