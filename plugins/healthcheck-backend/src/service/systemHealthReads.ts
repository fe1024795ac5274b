import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { InputError, NotFoundError } from '@backstage/errors';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  canonicalEntityRef,
  SLICE_UPTIME_WINDOWS,
  SliceUptimeResponse,
  SliceUptimeWindow,
  SystemHealthDetails,
  SystemHealthSummary,
  SystemListResponse,
  SystemRollup,
  SystemSloSummary,
  tryDecodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import { LastKnownReads } from '../database/LastKnownReads';
import {
  SystemMaintenance,
  withMaintenance,
} from '../maintenance/systemMaintenance';
import { readableEntityRefs } from '../permissions/readableEntityRefs';
import { computeRollup } from '../rollup/computeRollup';
import type { LiveKeyOf } from '../rollup/liveKeys';
import { matrixOf } from '../rollup/systemMatrix';
import { listSystems } from './listSystems';
import type { SystemListQuery } from './parseSystemListQuery';
import { forReader, otherEntitiesNamedIn } from './rollupForReader';
import type {
  EnvironmentSlice,
  HistoryStore,
  RunPage,
  UptimeSummary,
} from '../model';

/**
 * Systems whose matrix is remembered for a stale answer: those whose pages
 * were open when the database went away.
 */
const LAST_KNOWN_MATRICES = 2_000;

const SYSTEM_FIELDS = [
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.title',
  'spec.owner',
];

/**
 * What {@link createSystemHealthReads} reads from.
 * @internal
 */
export interface SystemHealthReadsOptions {
  catalog: CatalogService;
  states: Pick<
    DatabaseStateStore,
    'readSystemSlices' | 'readEnvironmentSlices'
  >;
  history: Pick<HistoryStore, 'listRuns' | 'sliceUptimes'>;
  /**
   * A system's rollup; while the database cannot be read, the last one
   * read, `stale: true`.
   */
  loadRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  /**
   * A system's slices with their states, for its matrix; the store's read
   * unless given (the plugin gives its in-memory read model's, which
   * answers at once, not as a promise, while the model is current).
   */
  loadSystemSlices?: (
    systemRef: string,
  ) => EnvironmentSlice[] | Promise<EnvironmentSlice[]>;
  /** The rollups of many systems, as `loadRollup` reads one. */
  loadRollups: (
    systemRefs: readonly string[],
  ) => Promise<{ rollups: ReadonlyMap<string, SystemRollup>; stale: boolean }>;
  /** The key of a system's status signals, which its answers carry. */
  liveKeyOf: LiveKeyOf;
  /**
   * The maintenance over a system's slices, which a system's details show
   * (current and next window, failing checks marked); none without it.
   */
  maintenanceOf?: (
    slices: ReadonlyArray<{
      checkId: string;
      systemRef: string;
      environment: string;
    }>,
  ) => Promise<SystemMaintenance | undefined>;
  /**
   * The SLO line of each of the systems that has objectives the caller may
   * read, which the list of systems shows; none without it.
   */
  sloSummaries?: (
    systemRefs: readonly string[],
    credentials: BackstageCredentials,
  ) => Promise<ReadonlyMap<string, SystemSloSummary>>;
  now?: () => number;
}

/**
 * The reads of system health as one caller may see them, whoever asks: the
 * REST routes and the actions agents call answer from these, so both apply
 * the same visibility. A caller sees a system only if the catalog lets it
 * read the System entity (else 404, as for one that does not exist), and of
 * the systems and components an answer names besides, only those it may
 * read.
 * @internal
 */
export interface SystemHealthReads {
  /** The System entity if it exists and the caller may read it; else 404. */
  visibleSystem(
    systemRef: string,
    credentials: BackstageCredentials,
  ): Promise<Entity>;
  /** One page of the systems the caller may read (`GET /v1/systems`). */
  listSystems(
    query: SystemListQuery,
    credentials: BackstageCredentials,
  ): Promise<SystemListResponse>;
  /** A system's rollup and matrix (`GET /v1/systems/{namespace}/{name}`). */
  systemDetails(
    systemRef: string,
    credentials: BackstageCredentials,
  ): Promise<SystemHealthDetails>;
  /** A page of one slice's runs, newest first (`GET /v1/slices/{id}/runs`). */
  sliceRuns(
    sliceId: string,
    range: { from: number; to: number; limit?: number; cursor?: string },
    credentials: BackstageCredentials,
  ): Promise<RunPage>;
  /**
   * The up-time of each slice of a system over each window ending at `to`
   * (`GET /v1/systems/{namespace}/{name}/uptime`).
   */
  sliceUptimes(
    systemRef: string,
    to: number,
    credentials: BackstageCredentials,
  ): Promise<SliceUptimeResponse>;
}

/**
 * A system's details, the same object while what they are made of is: the
 * read model hands out the same rollup and slices until they change, so
 * most reads of a system build nothing, and an unchanged answer can be sent
 * as the bytes it was last sent as (see `sendJson`). Held weakly by the
 * slices, which the model drops when they change; stale answers and
 * empty rollups (computed at each read's time) are built every time.
 */
class DetailsMemo {
  readonly #made = new WeakMap<
    readonly EnvironmentSlice[],
    { rollup: SystemRollup; entity: Entity; details: SystemHealthDetails }
  >();
  readonly #make: (
    entity: Entity,
    rollup: SystemRollup | undefined,
    slices: EnvironmentSlice[],
    stale: boolean,
  ) => SystemHealthDetails;

  constructor(
    make: (
      entity: Entity,
      rollup: SystemRollup | undefined,
      slices: EnvironmentSlice[],
      stale: boolean,
    ) => SystemHealthDetails,
  ) {
    this.#make = make;
  }

  get(
    entity: Entity,
    rollup: SystemRollup | undefined,
    slices: EnvironmentSlice[],
    stale: boolean,
  ): SystemHealthDetails {
    if (!rollup || rollup.stale || stale) {
      return this.#make(entity, rollup, slices, stale);
    }
    const made = this.#made.get(slices);
    if (
      made &&
      made.rollup === rollup &&
      (made.entity === entity || sameShownFields(made.entity, entity))
    ) {
      return made.details;
    }
    const details = this.#make(entity, rollup, slices, stale);
    this.#made.set(slices, { rollup, entity, details });
    return details;
  }
}

/**
 * The reads of system health; see {@link SystemHealthReads}.
 * @internal
 */
export function createSystemHealthReads(
  options: SystemHealthReadsOptions,
): SystemHealthReads {
  const { catalog, states, history, loadRollup, loadRollups, liveKeyOf } =
    options;
  const now = options.now ?? Date.now;
  const loadSystemSlices =
    options.loadSystemSlices ??
    ((systemRef: string) => states.readSystemSlices(systemRef));
  // The matrix beside a stale rollup: the slices last read of the system.
  const lastKnownSlices = new LastKnownReads<EnvironmentSlice[]>({
    what: 'checks',
    max: LAST_KNOWN_MATRICES,
  });

  async function visibleSystem(
    systemRef: string,
    credentials: BackstageCredentials,
  ): Promise<Entity> {
    const entity = await catalog.getEntityByRef(systemRef, { credentials });
    if (!entity || entity.kind.toLowerCase() !== 'system') {
      throw new NotFoundError(`No system ${systemRef}`);
    }
    return entity;
  }

  /**
   * The answers as the caller may see them: without the upstream systems
   * and targeted components it cannot read (one catalog request for all).
   */
  async function forCaller<T extends SystemHealthSummary>(
    answers: T[],
    credentials: BackstageCredentials,
  ): Promise<T[]> {
    const readable = await readableEntityRefs(
      catalog,
      otherEntitiesNamedIn(answers),
      credentials,
    );
    return answers.map(answer => forReader(answer, readable));
  }

  /** A system's summary; `stale` when what it shows is the last read. */
  function summaryOf(
    entity: Entity,
    rollup: SystemRollup | undefined,
    stale: boolean,
  ): SystemHealthSummary {
    const systemRef = stringifyEntityRef(entity).toLowerCase();
    return {
      ...(rollup ??
        computeRollup({
          systemRef,
          slices: [],
          environmentSince: new Map(),
          upstream: [],
          now: now(),
        })),
      ...(stale && { stale: true }),
      name: entity.metadata.name,
      namespace: entity.metadata.namespace ?? 'default',
      title: entity.metadata.title,
      // In full, so every client can link it: `guests` in a System's file
      // is `group:<its namespace>/guests`.
      owner:
        typeof entity.spec?.owner === 'string'
          ? canonicalEntityRef(entity.spec.owner, {
              defaultKind: 'group',
              defaultNamespace: entity.metadata.namespace,
            })
          : undefined,
      liveKey: liveKeyOf(systemRef),
    };
  }

  /** A page of summaries with each system's maintenance and SLO line, where it has them. */
  async function withMaintenanceAndSlo(
    items: SystemHealthSummary[],
    credentials: BackstageCredentials,
  ): Promise<SystemHealthSummary[]> {
    const { maintenanceOf, sloSummaries } = options;
    const [maintenances, slos] = await Promise.all([
      Promise.all(
        items.map(async item => {
          if (!maintenanceOf) {
            return undefined;
          }
          const slices = await loadSystemSlices(item.systemRef);
          return await maintenanceOf(slices);
        }),
      ),
      sloSummaries?.(
        items.map(item => item.systemRef),
        credentials,
      ),
    ]);
    return items.map((item, index) => {
      const maintenance = maintenances[index];
      const slo = slos?.get(item.systemRef);
      return {
        ...item,
        ...(maintenance && {
          maintenance: {
            current: maintenance.current,
            ...(maintenance.next && { next: maintenance.next }),
          },
        }),
        ...(slo && { slo }),
      };
    });
  }

  const detailsOf = new DetailsMemo((entity, rollup, slices, stale) => ({
    ...summaryOf(entity, rollup, Boolean(rollup?.stale) || stale),
    ...matrixOf(slices),
  }));

  return {
    visibleSystem,

    async listSystems(query, credentials) {
      const { items } = await catalog.getEntities(
        { filter: { kind: 'System' }, fields: SYSTEM_FIELDS },
        { credentials },
      );
      const { rollups, stale } = await loadRollups(
        items.map(e => stringifyEntityRef(e).toLowerCase()),
      );
      const page = listSystems(
        items.map(entity =>
          summaryOf(
            entity,
            rollups.get(stringifyEntityRef(entity).toLowerCase()),
            stale,
          ),
        ),
        query,
      );
      const seen = await forCaller(page.items, credentials);
      return { ...page, items: await withMaintenanceAndSlo(seen, credentials) };
    },

    async systemDetails(systemRef, credentials) {
      const entity = await visibleSystem(systemRef, credentials);
      const [rollup, slices] = await Promise.all([
        loadRollup(systemRef),
        lastKnownSlices.read(systemRef, () => loadSystemSlices(systemRef)),
      ]);
      const details = detailsOf.get(entity, rollup, slices.value, slices.stale);
      const [seen] = await forCaller([details], credentials);
      const maintenance = await options.maintenanceOf?.(
        seen.checks.flatMap(row =>
          Object.keys(row.cells).map(environment => ({
            checkId: row.checkId,
            systemRef,
            environment,
          })),
        ),
      );
      return maintenance ? withMaintenance(seen, maintenance) : seen;
    },

    async sliceRuns(sliceId, range, credentials) {
      const key = sliceKeyOf(sliceId);
      await visibleSystem(key.systemRef, credentials);
      return await history.listRuns({ sliceId, ...range });
    },

    async sliceUptimes(systemRef, to, credentials) {
      await visibleSystem(systemRef, credentials);
      const uptimes = await history.sliceUptimes({
        systemRef,
        ranges: SLICE_UPTIME_WINDOWS.map(({ ms }) => ({ from: to - ms, to })),
      });
      return sliceUptimeResponse(uptimes, to);
    },
  };
}

/**
 * The key of a slice id.
 * @throws InputError when the text is not a slice id
 * @internal
 */
export function sliceKeyOf(sliceId: string) {
  const key = tryDecodeSliceId(sliceId);
  if (!key) {
    throw new InputError(
      `'${sliceId}' is not a slice id (healthcheck:<check>:<system>:<environment>)`,
    );
  }
  return key;
}

/**
 * The up-time route's answer: each slice's up-time over each of
 * {@link SLICE_UPTIME_WINDOWS} (given in that order), `null` where a window
 * has no up or down time.
 * @internal
 */
export function sliceUptimeResponse(
  uptimes: ReadonlyMap<string, readonly UptimeSummary[]>,
  to: number,
): SliceUptimeResponse {
  const slices: SliceUptimeResponse['slices'] = {};
  for (const [sliceId, summaries] of uptimes) {
    slices[sliceId] = Object.fromEntries(
      SLICE_UPTIME_WINDOWS.map(({ window }, index) => [
        window,
        summaries[index]?.uptime ?? null,
      ]),
    ) as Record<SliceUptimeWindow, number | null>;
  }
  return {
    to: new Date(to).toISOString(),
    windows: SLICE_UPTIME_WINDOWS.map(({ window }) => window),
    slices,
  };
}

/** Whether two reads of a System show the same: the catalog client parses a fresh entity per read. */
function sameShownFields(a: Entity, b: Entity): boolean {
  return (
    a.metadata.name === b.metadata.name &&
    a.metadata.namespace === b.metadata.namespace &&
    a.metadata.title === b.metadata.title &&
    a.spec?.owner === b.spec?.owner
  );
}
