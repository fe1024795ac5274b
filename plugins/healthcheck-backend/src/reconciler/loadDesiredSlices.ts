import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  ANNOTATION_LOCATION,
  ANNOTATION_SOURCE_LOCATION,
} from '@backstage/catalog-model';
import {
  formatSpecProblems,
  HEALTHCHECK_KIND,
  HealthCheckSpec,
  HealthCheckSpecProblem,
  isHealthCheckEntity,
  resolveCheckTiming,
} from '@vigil/plugin-healthcheck-common';
import {
  desiredSlices,
  ReconcilableCheck,
  SystemEnvironments,
} from './desiredSlices';
import type { DesiredSlice, DesiredSliceSet } from '../model';
import type { DerivationMemo, MemoPass } from './derivationMemo';
import type { DesiredSliceSettings } from './reconcileSettings';
import {
  environmentVocabularyOf,
  EnvironmentProblem,
  groupMembersBySystem,
  ownerRef,
  resolveEnvironments,
} from './resolveEnvironments';

/**
 * The catalog fields the reconciler reads; the rest is not fetched. The
 * owner decides which members may add environments.
 */
const SYSTEM_FIELDS = [
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.annotations',
  'spec.owner',
];
const MEMBER_FIELDS = [...SYSTEM_FIELDS, 'spec.system'];
const ENVIRONMENT_FIELDS = ['kind', 'metadata.name', 'metadata.namespace'];

/** The safe choices, for callers that read no configuration. */
const DEFAULT_SETTINGS: DesiredSliceSettings = {
  environmentsFromMembers: 'owner',
  allowPlaceholderHosts: false,
  checksFromCatalog: 'owner',
};

/**
 * Systems per catalog request of a scoped pass. Each is written three ways
 * in the filter, twice for members; 20 keep the URL under 5 KB, well inside
 * the 16 KB of request headers Node accepts (hundreds failed with 431).
 */
const SYSTEMS_PER_FILTER = 20;

type EntityFilter = NonNullable<
  NonNullable<Parameters<CatalogService['getEntities']>[0]>['filter']
>;

/**
 * A check that fails validation where it is loaded: it runs nowhere.
 * @internal
 */
export interface InvalidCheck {
  checkId: string;
  /** `path: reason`, as validation writes them. */
  problems: string[];
}

/**
 * Judges a check spec as the API and the catalog do; empty when it is fine.
 * @internal
 */
export type CheckSpecValidator = (
  spec: unknown,
  context: { defaultNamespace: string; source: 'catalog' | 'api' },
) => HealthCheckSpecProblem[];

/** Everything a full reconcile derives, with what it found wrong on the way. */
export interface LoadedDesiredSlices extends DesiredSliceSet {
  environmentProblems: EnvironmentProblem[];
  invalidChecks: InvalidCheck[];
  /** With a memo: what it gave back, and whether all was as before. */
  reuse?: MemoPass;
}

/**
 * Reads what should exist, from the catalog (systems, their members and
 * environments, HealthCheck entities) and from the plugin's own checks, and
 * derives the desired slices. The I/O edge of the reconciler; the deciding
 * is done by the pure functions it calls.
 *
 * With `systemRefs`, reads only those systems, their members and the
 * HealthCheck entities that name them, and derives only their slices: the
 * input of a system-scoped pass.
 */
export async function loadDesiredSlices(options: {
  catalog: CatalogService;
  credentials: BackstageCredentials;
  listStoredChecks: () => Promise<Array<{ id: string; spec: object }>>;
  systemRefs?: readonly string[];
  /**
   * Judges each check before it is derived, so a check that reached the
   * catalog or the database without passing today's validation (an older
   * release wrote it, a module's type judges its config, a bound tightened)
   * runs nowhere. Everything passes without it.
   */
  validateSpec?: CheckSpecValidator;
  /**
   * Judges each slice as rendered for its system and environment; a slice
   * with problems is left out. Everything passes without it.
   */
  validateSlice?: (
    slice: DesiredSlice,
  ) => Array<{ path: string; reason: string }>;
  /** Who may add environments, and how targets render; the safe defaults without. */
  settings?: DesiredSliceSettings;
  /**
   * What the last full load derived, given back for checks and systems
   * that did not change; a full load (no `systemRefs`) renews it. The
   * caller keeps it with the same validators and settings.
   */
  memo?: DerivationMemo;
}): Promise<LoadedDesiredSlices> {
  const { catalog, credentials, systemRefs } = options;
  const settings = options.settings ?? DEFAULT_SETTINGS;
  if (systemRefs?.length === 0) {
    return {
      slices: [],
      paused: [],
      unresolvedSystems: [],
      refused: [],
      environmentProblems: [],
      invalidChecks: [],
    };
  }
  // How an entity may write a reference to one of the systems: the catalog
  // matches filter values without regard to case; what a short name means
  // in another namespace is settled after, when refs are resolved. A
  // filter travels in the request's URL, so many systems are asked about a
  // few at a time.
  const writingsInChunks = systemRefs
    ? chunksOf(systemRefs, SYSTEMS_PER_FILTER).map(refs =>
        refs.flatMap(systemRefWritings),
      )
    : undefined;
  const entitiesNaming = async (
    filterFor: (writings?: string[]) => EntityFilter,
    fields?: string[],
  ): Promise<{ items: Entity[] }> => {
    if (!writingsInChunks) {
      // One request: nothing comes back twice.
      return await catalog.getEntities(
        { filter: filterFor(), ...(fields && { fields }) },
        { credentials },
      );
    }
    const byRef = new Map<string, Entity>();
    for (const writings of writingsInChunks) {
      const { items } = await catalog.getEntities(
        { filter: filterFor(writings), ...(fields && { fields }) },
        { credentials },
      );
      // A check naming systems of two chunks comes back twice.
      for (const entity of items) {
        byRef.set(stringifyEntityRef(entity), entity);
      }
    }
    return { items: [...byRef.values()] };
  };
  const [checkEntities, systems, members, environmentEntities, stored] =
    await Promise.all([
      entitiesNaming(writings => ({
        kind: HEALTHCHECK_KIND,
        ...(writings && { 'spec.systems': writings }),
      })),
      systemRefs
        ? catalog
            .getEntitiesByRefs(
              { entityRefs: [...systemRefs], fields: SYSTEM_FIELDS },
              { credentials },
            )
            .then(response => ({
              items: response.items.filter((e): e is Entity => !!e),
            }))
        : catalog.getEntities(
            { filter: { kind: 'System' }, fields: SYSTEM_FIELDS },
            { credentials },
          ),
      entitiesNaming(
        writings => [
          { kind: 'Component', ...(writings && { 'spec.system': writings }) },
          { kind: 'Resource', ...(writings && { 'spec.system': writings }) },
        ],
        MEMBER_FIELDS,
      ),
      catalog.getEntities(
        { filter: { kind: 'Environment' }, fields: ENVIRONMENT_FIELDS },
        { credentials },
      ),
      options.listStoredChecks(),
    ]);

  // A scoped load reads a few systems: it neither uses nor renews the memo.
  const memo = systemRefs ? undefined : options.memo;
  memo?.begin(JSON.stringify(settings));
  const invalidChecks: InvalidCheck[] = [];
  const valid = (
    id: string,
    spec: unknown,
    context: Parameters<CheckSpecValidator>[1],
    version: string | undefined,
  ) => {
    const judge = () =>
      formatSpecProblems(options.validateSpec?.(spec, context) ?? []);
    const problems =
      memo && version !== undefined
        ? memo.judgement(id, version, judge)
        : judge();
    if (problems.length > 0) {
      invalidChecks.push({ checkId: id, problems });
    }
    return problems.length === 0;
  };
  const checks: ReconcilableCheck[] = [
    ...checkEntities.items.filter(isHealthCheckEntity).flatMap(entity => {
      const id = stringifyEntityRef(entity);
      const defaultNamespace = entity.metadata.namespace ?? 'default';
      // The catalog gives every entity an etag, new whenever it changes.
      const version = entity.metadata.etag;
      if (
        !valid(
          id,
          entity.spec,
          { defaultNamespace, source: 'catalog' },
          version,
        )
      ) {
        return [];
      }
      const spec = entity.spec as unknown as HealthCheckSpec;
      const annotations = entity.metadata.annotations ?? {};
      return [
        {
          id,
          source: {
            kind: 'gitops' as const,
            entityRef: id,
            location:
              annotations[ANNOTATION_SOURCE_LOCATION] ??
              annotations[ANNOTATION_LOCATION],
          },
          spec,
          ...resolveCheckTiming(spec),
          owner: ownerRef(entity),
          version,
        },
      ];
    }),
    ...stored.flatMap(check => {
      const version = memo ? JSON.stringify(check.spec) : undefined;
      if (
        !valid(
          check.id,
          check.spec,
          { defaultNamespace: 'default', source: 'api' },
          version,
        )
      ) {
        return [];
      }
      const spec = check.spec as unknown as HealthCheckSpec;
      return [
        {
          id: check.id,
          source: { kind: 'api' as const },
          spec,
          ...resolveCheckTiming(spec),
          version,
        },
      ];
    }),
  ];

  const vocabulary = environmentVocabularyOf(environmentEntities.items);
  const membersBySystem = groupMembersBySystem(members.items);
  // A scoped pass reports what concerns its systems alone.
  const environmentProblems: EnvironmentProblem[] = systemRefs
    ? []
    : [...vocabulary.problems];
  const systemEnvironments: SystemEnvironments[] = systems.items.map(
    (system: Entity) => {
      const ref = stringifyEntityRef(system);
      const resolved = resolveEnvironments({
        system,
        members: membersBySystem.get(ref) ?? [],
        environmentVocabulary:
          vocabulary.names.length > 0 ? vocabulary.names : undefined,
        fromMembers: settings.environmentsFromMembers,
      });
      environmentProblems.push(...resolved.problems);
      return {
        ref,
        name: system.metadata.name,
        environments: resolved.environments,
        owner: ownerRef(system),
      };
    },
  );

  const derived = desiredSlices({
    checks,
    systems: systemEnvironments,
    targets: { allowPlaceholderHosts: settings.allowPlaceholderHosts },
    checksFromCatalog: settings.checksFromCatalog,
    validateSlice: options.validateSlice,
    memo,
  });
  const reuse = memo?.end();
  if (systemRefs) {
    // Out of scope is not unknown: the other systems were not read.
    const inScope = new Set(systemRefs.map(ref => ref.toLowerCase()));
    derived.unresolvedSystems = derived.unresolvedSystems.filter(u =>
      inScope.has(u.systemRef.toLowerCase()),
    );
  }
  return {
    ...derived,
    environmentProblems,
    invalidChecks,
    ...(reuse && { reuse }),
  };
}

/** `system:ns/name`, `ns/name` and `name`: how an entity may name a system. */
function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let at = 0; at < items.length; at += size) {
    chunks.push(items.slice(at, at + size));
  }
  return chunks;
}

function systemRefWritings(systemRef: string): string[] {
  const { kind, namespace, name } = parseEntityRef(systemRef);
  return [`${kind}:${namespace}/${name}`, `${namespace}/${name}`, name].map(
    writing => writing.toLowerCase(),
  );
}
