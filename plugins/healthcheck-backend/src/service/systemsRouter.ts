import {
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { stringifyEntityRef } from '@backstage/catalog-model';
import { InputError, NotFoundError } from '@backstage/errors';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import express from 'express';
import { createTypedRouter } from '../schema/createTypedRouter';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import { CheckAccess } from '../permissions/CheckAccess';
import {
  checkResourceOf,
  HealthCheckResource,
} from '../permissions/checkResource';
import { cellOf } from '../rollup/systemMatrix';
import { parseHistoryQuery } from './parseHistoryQuery';
import { parseSystemListQuery } from './parseSystemListQuery';
import { parseUptimeQuery } from './parseUptimeQuery';
import { readCheckDetails } from './readCheckDetails';
import { sendJson } from './sendJson';
import {
  createSystemHealthReads,
  sliceKeyOf,
  SystemHealthReads,
  SystemHealthReadsOptions,
} from './systemHealthReads';
import type { HistoryStore } from '../model';
/**
 * The systems router (`/v1/systems/...`), the read side of system health:
 * rollups, the environment x check matrix,
 * its cells' up-time, history and single slices, as the caller may see them
 * (see {@link SystemHealthReads}).
 * @internal
 */
export function createSystemsRouter(
  options: SystemHealthReadsOptions & {
    httpAuth: HttpAuthService;
    /** For the checks of a system: which of them the caller may read. */
    permissions: Pick<PermissionsService, 'authorizeConditional'>;
    /** The registry's rules of checks; the plugin's own by default. */
    checkRuleset?: PermissionRuleset<HealthCheckResource>;
    /** Where API checks are read, for a system's checks. */
    checks: Pick<HealthcheckStore, 'getCheck'>;
    states: DatabaseStateStore;
    history: HistoryStore;
    /**
     * The reads the routes answer from; built from these options when not
     * given (the plugin shares one with its actions).
     */
    reads?: SystemHealthReads;
  },
): express.Router {
  const { httpAuth, catalog, checks, states, history } = options;
  const now = options.now ?? Date.now;
  const reads = options.reads ?? createSystemHealthReads(options);
  const router = createTypedRouter();
  const access = new CheckAccess({
    catalog,
    permissions: options.permissions,
    ruleset: options.checkRuleset,
  });

  async function authenticate(req: express.Request) {
    return await httpAuth.credentials(req, { allow: ['user', 'service'] });
  }

  router.get('/v1/systems', async (req, res) => {
    const credentials = await authenticate(req);
    const query = parseSystemListQuery(req.query as Record<string, unknown>);
    res.json(await reads.listSystems(query, credentials));
  });

  router.get('/v1/systems/:namespace/:name', async (req, res) => {
    const credentials = await authenticate(req);
    const systemRef = systemRefOf(req.params);
    sendJson(res, await reads.systemDetails(systemRef, credentials));
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
    await reads.visibleSystem(systemRef, credentials);
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
    res.json(
      await reads.sliceUptimes(systemRefOf(req.params), to, credentials),
    );
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
    await reads.visibleSystem(systemRef, credentials);
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
    const query = parseHistoryQuery(
      req.query as Record<string, unknown>,
      now(),
    );
    res.json(
      await reads.sliceRuns(
        req.params.sliceId,
        {
          from: query.from,
          to: query.to,
          limit: query.limit,
          cursor: query.cursor,
        },
        credentials,
      ),
    );
  });

  router.get('/v1/slices/:sliceId', async (req, res) => {
    const credentials = await authenticate(req);
    const key = sliceKeyOf(req.params.sliceId);
    await reads.visibleSystem(key.systemRef, credentials);
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
