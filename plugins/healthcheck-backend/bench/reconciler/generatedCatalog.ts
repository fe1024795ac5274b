/*
 * The catalog `bench:catalog` loads into a real catalog backend: per
 * system, one System listing two environments, two Components and one
 * Resource each adding an environment, and one HealthCheck, every entity
 * with the annotations and descriptive fields a provider from Git gives
 * it. At 10,000 systems: 50,000 entities, 30,000 slices.
 *
 * Shared by the bench and the catalog process it starts, so both know what
 * a change makes of an entity without sending catalogs between them.
 */
import type { Entity } from '@backstage/catalog-model';
import {
  HEALTHCHECK_API_VERSION,
  HEALTHCHECK_KIND,
} from '@vigil/plugin-healthcheck-common';

/** The environments every system lists, and the ones its members add. */
export const SYSTEM_ENVIRONMENTS = ['production', 'staging'];
const MEMBER_ENVIRONMENTS = ['production', 'staging', 'canary'];
const MEMBERS = [
  { kind: 'Component', suffix: 'api', type: 'service' },
  { kind: 'Component', suffix: 'web', type: 'website' },
  { kind: 'Resource', suffix: 'db', type: 'database' },
] as const;

/** Entities per system: the system, its members and its check. */
export const ENTITIES_PER_SYSTEM = 2 + MEMBERS.length;

/** In which share of each kind the changes of one round fall. */
export const CHANGED_SHARE = 100;

export function systemName(index: number): string {
  return `system-${index}`;
}

export function systemRefOf(index: number): string {
  return `system:default/${systemName(index)}`;
}

/**
 * The environment a changed system gains: one of its own per round, so
 * every changed system is probed somewhere new.
 */
export function changedEnvironmentOf(round: number): string {
  return `perf-${round}`;
}

/**
 * The whole generated catalog, or (with `onlyChangedIn`, 0 to 99) the
 * entities that round of changes touches, as they are after it: 1% of every kind, in
 * different systems (systems whose index is `round` modulo 100 change their
 * environments; members of systems `round + 33` their environment
 * annotations; checks of systems `round + 66` their interval).
 */
export function generatedCatalog(
  systems: number,
  onlyChangedIn?: number,
): Entity[] {
  const entities: Entity[] = [];
  const changed = (index: number, offset: number) =>
    onlyChangedIn !== undefined &&
    (index + CHANGED_SHARE - offset) % CHANGED_SHARE === onlyChangedIn
      ? onlyChangedIn
      : undefined;
  const wanted = (index: number, offset: number) =>
    onlyChangedIn === undefined || changed(index, offset) !== undefined;
  for (let i = 0; i < systems; i++) {
    const name = systemName(i);
    if (wanted(i, 0)) {
      const round = changed(i, 0);
      entities.push(
        systemEntity(
          i,
          round === undefined ? [] : [changedEnvironmentOf(round)],
        ),
      );
    }
    if (wanted(i, 33)) {
      const round = changed(i, 33);
      MEMBERS.forEach((member, m) => {
        entities.push(
          entity(member.kind, `${name}-${member.suffix}`, {
            annotations: {
              'vigil.dev/environment':
                round === undefined ? MEMBER_ENVIRONMENTS[m] : 'dr',
            },
            spec: {
              type: member.type,
              lifecycle: 'production',
              owner: 'team-a',
              system: name,
            },
          }),
        );
      });
    }
    if (wanted(i, 66)) {
      const round = changed(i, 66);
      entities.push({
        apiVersion: HEALTHCHECK_API_VERSION,
        kind: HEALTHCHECK_KIND,
        metadata: { name: `${name}-http`, ...gitAnnotations(name) },
        spec: {
          type: 'http',
          target: `https://${name}.example.com/{{ environment.name }}/health`,
          interval: round === undefined ? '30s' : '60s',
          timeout: '5s',
          conditions: ['[STATUS] == 200', '[BODY].status == UP'],
          thresholds: { failure: 2, success: 1 },
          systems: [name],
          owner: 'team-a',
        },
      });
    }
  }
  return entities;
}

/** The i-th System, listing `added` environments beyond its own. */
export function systemEntity(index: number, added: string[] = []): Entity {
  return entity('System', systemName(index), {
    annotations: {
      'vigil.dev/environments': [...SYSTEM_ENVIRONMENTS, ...added].join(','),
    },
    spec: { owner: 'team-a', domain: `domain-${index % 50}` },
  });
}

function entity(
  kind: string,
  name: string,
  parts: { annotations: Record<string, string>; spec: Entity['spec'] },
): Entity {
  const system = name.replace(/-(api|web|db)$/, '');
  const git = gitAnnotations(system);
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind,
    metadata: {
      name,
      description: `The ${name} ${kind.toLowerCase()} of ${system}, generated for the catalog bench`,
      tags: ['generated', 'bench'],
      links: [{ url: `https://${system}.example.com/docs`, title: 'Docs' }],
      annotations: { ...git.annotations, ...parts.annotations },
    },
    spec: parts.spec,
  };
}

/** What a provider reading `catalog-info.yaml` from Git sets on an entity. */
function gitAnnotations(system: string): {
  annotations: Record<string, string>;
} {
  const file = `https://git.example.com/teams/${system}/blob/main/catalog-info.yaml`;
  return {
    annotations: {
      'backstage.io/managed-by-location': `url:${file}`,
      'backstage.io/managed-by-origin-location': `url:${file}`,
      'backstage.io/view-url': file,
      'backstage.io/edit-url': file.replace('/blob/', '/edit/'),
      'backstage.io/source-location': `url:https://git.example.com/teams/${system}/tree/main/`,
    },
  };
}
