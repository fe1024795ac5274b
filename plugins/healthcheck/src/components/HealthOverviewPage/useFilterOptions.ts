import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';
import { useApi } from '@backstage/core-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { SystemHealthSummary } from '@vigil/plugin-healthcheck-common';
import { useMemo, useRef } from 'react';
import useAsync from 'react-use/esm/useAsync';

const ENVIRONMENTS_ANNOTATION = 'vigil.dev/environments';
const ENVIRONMENT_ANNOTATION = 'vigil.dev/environment';

/**
 * The choices of the owner and environment filters: the owners of System
 * entities and the environments the catalog's annotations name (from the
 * catalog's facets, so all of them, not one page's), plus what the pages
 * seen so far show and the current choice. Owners are full refs, as the
 * backend names them, whether the catalog stores `data-team` or
 * `group:default/data-team`; environments are the names as stored (the
 * backend matches both without regard to case).
 * @internal
 */
export function useFilterOptions(
  items: SystemHealthSummary[] | undefined,
  selected: { owner: string; environment: string },
): { owners: string[]; environments: string[] } {
  const catalogApi = useApi(catalogApiRef);
  const { value: facets } = useAsync(async () => {
    const [owners, environments] = await Promise.all([
      catalogApi
        .getEntityFacets({
          filter: { kind: 'System' },
          facets: ['spec.owner'],
        })
        .then(r => r.facets['spec.owner'] ?? [])
        .catch(() => []),
      catalogApi
        .getEntityFacets({
          filter: { kind: ['System', 'Component', 'Resource'] },
          facets: [
            `metadata.annotations.${ENVIRONMENTS_ANNOTATION}`,
            `metadata.annotations.${ENVIRONMENT_ANNOTATION}`,
          ],
        })
        .then(r =>
          Object.values(r.facets)
            .flat()
            .flatMap(facet => facet.value.split(',')),
        )
        .catch(() => []),
    ]);
    return {
      owners: owners.map(facet => facet.value),
      environments,
    };
  }, [catalogApi]);

  // What pages showed stays a choice after paging on.
  const seen = useRef({
    owners: new Set<string>(),
    environments: new Set<string>(),
  });
  for (const item of items ?? []) {
    if (item.owner) seen.current.owners.add(item.owner);
    for (const environment of item.environments) {
      seen.current.environments.add(environment.name);
    }
  }

  const ownerKey = [...seen.current.owners].join('\n');
  const environmentKey = [...seen.current.environments].join('\n');
  return useMemo(
    () => ({
      owners: distinct(
        [
          ...(facets?.owners ?? []).map(fullOwnerRef),
          ...seen.current.owners,
          selected.owner,
        ],
        value => value.toLowerCase(),
      ),
      environments: distinct(
        [
          ...(facets?.environments ?? []),
          ...seen.current.environments,
          selected.environment,
        ].map(value => value.trim().toLowerCase()),
        value => value,
      ),
    }),
    // The keys stand for the sets, which change in place.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [facets, ownerKey, environmentKey, selected.owner, selected.environment],
  );
}

/** An owner as a full ref (a group by default); unparsable ones as stored. */
function fullOwnerRef(owner: string): string {
  try {
    return stringifyEntityRef(
      parseEntityRef(owner, {
        defaultKind: 'group',
        defaultNamespace: 'default',
      }),
    );
  } catch {
    return owner;
  }
}

function distinct(values: string[], key: (value: string) => string): string[] {
  const byKey = new Map<string, string>();
  for (const value of values) {
    if (value && !byKey.has(key(value))) {
      byKey.set(key(value), value);
    }
  }
  return [...byKey.values()].sort((a, b) => a.localeCompare(b));
}
