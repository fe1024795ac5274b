import {
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { InputError, NotFoundError } from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import {
  canonicalEntityRef,
  SLICE_UPTIME_WINDOWS,
  SliceUptimeResponse,
  SliceUptimeWindow,
  SystemHealthDetails,
  SystemHealthSummary,
  SystemRollup,
  tryDecodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import { createTypedRouter } from '../schema/createTypedRouter';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import { LastKnownReads } from '../database/LastKnownReads';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import { CheckAccess } from '../permissions/CheckAccess';
import {
  checkResourceOf,
  HealthCheckResource,
} from '../permissions/checkResource';
import { readableEntityRefs } from '../permissions/readableEntityRefs';
import { computeRollup } from '../rollup/computeRollup';
import type { LiveKeyOf } from '../rollup/liveKeys';
import { cellOf, matrixOf } from '../rollup/systemMatrix';
import { listSystems, parseSystemListQuery } from './listSystems';
import { readCheckDetails } from './readCheckDetails';
import { forReader, otherEntitiesNamedIn } from './rollupForReader';
import type { EnvironmentSlice, HistoryStore, UptimeSummary } from '../model';

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
 * The read side of system health: rollups, the environment x check matrix,
 * its cells' up-time, history and single slices. A caller sees a system
 * only if the catalog lets it read the System entity, and of the systems
 * and components an answer names besides, only those it may read.
 * @internal
 */
export function createHealthRouter(options: {
  httpAuth: HttpAuthService;
  catalog: CatalogService;
  /** For the checks of a system: which of them the caller may read. */
  permissions: Pick<PermissionsService, 'authorizeConditional'>;
  /** The registry's rules of checks; the plugin's own by default. */
  checkRuleset?: PermissionRuleset<HealthCheckResource>;
  /** Where API checks are read, for a system's checks. */
  checks: Pick<HealthcheckStore, 'getCheck'>;
  states: DatabaseStateStore;
  history: HistoryStore;
  /**
   * A system's rollup; while the database cannot be read, the last one
   * read, `stale: true`.
   */
  loadRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  /** The rollups of many systems, as `loadRollup` reads one. */
  loadRollups: (
    systemRefs: readonly string[],
  ) => Promise<{ rollups: ReadonlyMap<string, SystemRollup>; stale: boolean }>;
  /** The key of a system's status signals, which its answers carry. */
  liveKeyOf: LiveKeyOf;
  now?: () => number;
}): express.Router {
  const {
    httpAuth,
    catalog,
    checks,
    states,
    history,
    loadRollup,
    loadRollups,
    liveKeyOf,
  } = options;
  const now = options.now ?? Date.now;
  const router = createTypedRouter();
  // The matrix beside a stale rollup: the slices last read of the system.
  const lastKnownSlices = new LastKnownReads<EnvironmentSlice[]>({
    what: 'checks',
    max: LAST_KNOWN_MATRICES,
  });
  const access = new CheckAccess({
    catalog,
    permissions: options.permissions,
    ruleset: options.checkRuleset,
  });

  async function authenticate(req: express.Request) {
    return await httpAuth.credentials(req, { allow: ['user', 'service'] });
  }

  /** The System entity if it exists and the caller may read it; else 404. */
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

  router.get('/v1/systems', async (req, res) => {
    const credentials = await authenticate(req);
    const query = parseSystemListQuery(req.query as Record<string, unknown>);
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
    res.json({ ...page, items: await forCaller(page.items, credentials) });
  });

  router.get('/v1/systems/:namespace/:name', async (req, res) => {
    const credentials = await authenticate(req);
    const systemRef = systemRefOf(req.params);
    const entity = await visibleSystem(systemRef, credentials);
    const [rollup, slices] = await Promise.all([
      loadRollup(systemRef),
      lastKnownSlices.read(systemRef, () => states.readSystemSlices(systemRef)),
    ]);
    const details: SystemHealthDetails = {
      ...summaryOf(entity, rollup, Boolean(rollup?.stale) || slices.stale),
      ...matrixOf(slices.value),
    };
    const [seen] = await forCaller([details], credentials);
    res.json(seen);
  });

  router.get('/v1/systems/:namespace/:name/history', async (req, res) => {
    const credentials = await authenticate(req);
    const query = parseHistoryQuery(
      req.query as Record<string, unknown>,
      now(),
      ['environment', 'granularity'],
    );
    const granularity =
      (req.query.granularity as string | undefined) ?? 'hours';
    if (granularity !== 'hours' && granularity !== 'runs') {
      throw new InputError(
        `Invalid query: granularity: '${granularity}' is not 'hours' or 'runs'`,
      );
    }
    const systemRef = systemRefOf(req.params);
    await visibleSystem(systemRef, credentials);
    const environment = req.query.environment as string | undefined;
    const range = { systemRef, environment, from: query.from, to: query.to };
    const [{ uptime, responseTime }, page] = await Promise.all([
      history.summary(range),
      granularity === 'runs'
        ? history.listRuns({
            ...range,
            limit: query.limit,
            cursor: query.cursor,
          })
        : history.listHours(range).then(items => ({ runs: items })),
    ]);
    res.json({
      granularity,
      from: new Date(query.from).toISOString(),
      to: new Date(query.to).toISOString(),
      uptime,
      responseTime,
      items: page.runs,
      nextCursor: 'nextCursor' in page ? page.nextCursor : undefined,
    });
  });

  // Apart from the system route, which is read on every page view and
  // must stay fast: this one reads up to 30 days of hourly rows per slice.
  router.get('/v1/systems/:namespace/:name/uptime', async (req, res) => {
    const credentials = await authenticate(req);
    const { to } = parseUptimeQuery(
      req.query as Record<string, unknown>,
      now(),
    );
    const systemRef = systemRefOf(req.params);
    await visibleSystem(systemRef, credentials);
    const uptimes = await history.sliceUptimes({
      systemRef,
      ranges: SLICE_UPTIME_WINDOWS.map(({ ms }) => ({ from: to - ms, to })),
    });
    res.json(sliceUptimeResponse(uptimes, to));
  });

  // The details of the checks in a system's matrix in one request, instead
  // of one per check.
  router.get('/v1/systems/:namespace/:name/checks', async (req, res) => {
    const credentials = await authenticate(req);
    const unknown = Object.keys(req.query);
    if (unknown.length > 0) {
      throw new InputError(
        `Invalid query: ${unknown
          .map(key => `${key}: unknown parameter (there are none)`)
          .join('; ')}`,
      );
    }
    const systemRef = systemRefOf(req.params);
    await visibleSystem(systemRef, credentials);
    const slices = await states.readSystemSlices(systemRef);
    const ids = [...new Set(slices.map(slice => slice.checkId))].sort();
    const details = await readCheckDetails({
      ids,
      store: checks,
      catalog,
      credentials,
    });
    res.json({
      items: await access.visible(details, checkResourceOf, credentials),
    });
  });

  router.get('/v1/slices/:sliceId/runs', async (req, res) => {
    const credentials = await authenticate(req);
    const key = sliceKeyOf(req.params.sliceId);
    await visibleSystem(key.systemRef, credentials);
    const query = parseHistoryQuery(
      req.query as Record<string, unknown>,
      now(),
    );
    res.json(
      await history.listRuns({
        sliceId: req.params.sliceId,
        from: query.from,
        to: query.to,
        limit: query.limit,
        cursor: query.cursor,
      }),
    );
  });

  router.get('/v1/slices/:sliceId', async (req, res) => {
    const credentials = await authenticate(req);
    const key = sliceKeyOf(req.params.sliceId);
    await visibleSystem(key.systemRef, credentials);
    const slices = await states.readEnvironmentSlices([
      { systemRef: key.systemRef, environment: key.environment },
    ]);
    const slice = slices.find(s => s.sliceId === req.params.sliceId);
    if (!slice) {
      throw new NotFoundError(`No slice ${req.params.sliceId}`);
    }
    res.json(cellOf(slice));
  });

  return router;
}

/** The canonical ref of the system a route's path names. */
function systemRefOf(params: { namespace: string; name: string }): string {
  return stringifyEntityRef({
    kind: 'system',
    namespace: params.namespace,
    name: params.name,
  }).toLowerCase();
}

function sliceKeyOf(sliceId: string) {
  const key = tryDecodeSliceId(sliceId);
  if (!key) {
    throw new InputError(
      `'${sliceId}' is not a slice id (healthcheck:<check>:<system>:<environment>)`,
    );
  }
  return key;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * `from` and `to` (ISO 8601 or epoch ms; default the last 24 hours),
 * `limit` and `cursor`; every problem listed in one InputError.
 */
export function parseHistoryQuery(
  query: Record<string, unknown>,
  now: number,
  extraKeys: string[] = [],
): { from: number; to: number; limit?: number; cursor?: string } {
  const problems = parameterProblems(query, [
    'from',
    'to',
    'limit',
    'cursor',
    ...extraKeys,
  ]);
  const to = timeParameter(query, 'to', problems) ?? now;
  const from = timeParameter(query, 'from', problems) ?? to - DAY_MS;
  if (from >= to) {
    problems.push('from: must be before to');
  }
  let limit: number | undefined;
  if (typeof query.limit === 'string') {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      problems.push(
        `limit: '${query.limit}' is not a whole number from 1 to 1000`,
      );
    }
  }
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return {
    from,
    to,
    limit,
    cursor: typeof query.cursor === 'string' ? query.cursor : undefined,
  };
}

/**
 * `to` (ISO 8601 or epoch ms; default now, and never later): the end of the
 * up-time windows; every problem listed in one InputError.
 */
export function parseUptimeQuery(
  query: Record<string, unknown>,
  now: number,
): { to: number } {
  const problems = parameterProblems(query, ['to']);
  const to = timeParameter(query, 'to', problems) ?? now;
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return { to: Math.min(to, now) };
}

/** A problem for each parameter that is not known or not given once as text. */
function parameterProblems(
  query: Record<string, unknown>,
  known: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(query)) {
    if (!known.includes(key)) {
      problems.push(`${key}: unknown parameter (known: ${known.join(', ')})`);
    } else if (typeof query[key] !== 'string') {
      problems.push(`${key}: give it once, as text`);
    }
  }
  return problems;
}

/** A time parameter as epoch ms; undefined if absent, or wrong (noted). */
function timeParameter(
  query: Record<string, unknown>,
  key: string,
  problems: string[],
): number | undefined {
  const text = query[key];
  if (typeof text !== 'string') {
    return undefined;
  }
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) {
    problems.push(`${key}: '${text}' is neither an ISO 8601 time nor epoch ms`);
    return undefined;
  }
  return value;
}

/**
 * The up-time route's answer: each slice's up-time over each of
 * {@link SLICE_UPTIME_WINDOWS} (given in that order), `null` where a window
 * has no up or down time.
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
