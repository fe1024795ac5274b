import { hash } from 'node:crypto';
import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { canonicalJson } from './desiredSlices';
import { groupMembersBySystem } from './resolveEnvironments';
import type { JsonValue } from '@backstage/types';

/**
 * The key under which the fingerprint of the Environment entities is kept:
 * they shape every system's environments, so a change to them calls for a
 * full pass. Not an entity ref, so it cannot collide with a system's.
 * @internal
 */
export const ENVIRONMENTS_KEY = '*environments';

/**
 * The catalog as the change detector reads it: a few fields per entity.
 * @internal
 */
export interface CatalogSnapshot {
  systems: Entity[];
  /** Components and Resources. */
  members: Entity[];
  healthChecks: Entity[];
  environments: Entity[];
}

/**
 * One hash per system of everything in the catalog that shapes its slices:
 * the system entity, its members (their environments), and the HealthCheck
 * entities that name it, each by its `etag`. A system that is only named by
 * a check (not in the catalog yet) gets one too, so its arrival shows.
 * @internal
 */
export function catalogFingerprints(
  snapshot: CatalogSnapshot,
): Map<string, string> {
  const parts = new Map<string, string[]>();
  const add = (systemRef: string, part: string) => {
    const list = parts.get(systemRef);
    if (list) {
      list.push(part);
    } else {
      parts.set(systemRef, [part]);
    }
  };
  for (const system of snapshot.systems) {
    add(refOf(system), `system ${versionOf(system)}`);
  }
  for (const [systemRef, members] of groupMembersBySystem(snapshot.members)) {
    for (const member of members) {
      add(systemRef, `member ${refOf(member)} ${versionOf(member)}`);
    }
  }
  for (const check of snapshot.healthChecks) {
    const systems = check.spec?.systems;
    if (!Array.isArray(systems)) {
      continue;
    }
    const namespace = check.metadata.namespace ?? 'default';
    for (const written of new Set(systems)) {
      const systemRef = tryCanonicalSystemRef(written, namespace);
      if (systemRef) {
        add(systemRef, `check ${refOf(check)} ${versionOf(check)}`);
      }
    }
  }
  const fingerprints = new Map<string, string>();
  for (const [systemRef, list] of parts) {
    fingerprints.set(systemRef, digest(list));
  }
  fingerprints.set(
    ENVIRONMENTS_KEY,
    digest(snapshot.environments.map(e => `${refOf(e)} ${versionOf(e)}`)),
  );
  return fingerprints;
}

/**
 * What a poll found changed between two sets of fingerprints.
 * @internal
 */
export interface CatalogChanges {
  /** The Environment entities changed: every system may have. */
  environmentsChanged: boolean;
  /** Systems whose fingerprint is new, different or gone, sorted. */
  changedSystems: string[];
}

/** @internal */
export function compareFingerprints(
  previous: ReadonlyMap<string, string>,
  next: ReadonlyMap<string, string>,
): CatalogChanges {
  const changed = new Set<string>();
  for (const [key, value] of next) {
    if (previous.get(key) !== value) {
      changed.add(key);
    }
  }
  for (const key of previous.keys()) {
    if (!next.has(key)) {
      changed.add(key);
    }
  }
  const environmentsChanged = changed.delete(ENVIRONMENTS_KEY);
  return { environmentsChanged, changedSystems: [...changed].sort() };
}

function refOf(entity: Entity): string {
  return stringifyEntityRef(entity).toLowerCase();
}

/** The etag the catalog gives every entity; the content where it is missing. */
function versionOf(entity: Entity): string {
  return (
    entity.metadata.etag ??
    hash('sha256', canonicalJson(entity as unknown as JsonValue), 'hex')
  );
}

function tryCanonicalSystemRef(
  written: unknown,
  defaultNamespace: string,
): string | undefined {
  if (typeof written !== 'string') {
    return undefined;
  }
  try {
    return stringifyEntityRef(
      parseEntityRef(written, { defaultKind: 'system', defaultNamespace }),
    ).toLowerCase();
  } catch {
    return undefined;
  }
}

function digest(parts: string[]): string {
  return hash('sha256', parts.sort().join('\n'), 'hex');
}
