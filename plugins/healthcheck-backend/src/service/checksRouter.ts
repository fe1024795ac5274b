import {
  maintenanceRecurrenceRules,
  type ProbeSecrets,
  secretUsesOf,
} from '@vigil/plugin-healthcheck-node';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  AuditorService,
  AuditorServiceEvent,
  BackstageCredentials,
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  isError,
  NotAllowedError,
  toError,
} from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import {
  CheckDetails,
  GitOpsCheckSource,
  healthcheckCheckCreatePermission,
  healthcheckCheckDeletePermission,
  healthcheckCheckUpdatePermission,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import type { CheckRunStarted } from '../model';
import { createTypedRouter } from '../schema/createTypedRouter';
import { HealthcheckStore, StoredCheck } from '../database/HealthcheckStore';
import { TooManyRequestsError } from '../runs/runNowRateLimit';
import { CheckAccess, CheckPermission } from '../permissions/CheckAccess';
import {
  checkResourceOf,
  HealthCheckResource,
} from '../permissions/checkResource';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { apiCheckDetails } from './checkDetails';
import { ChecksChange, systemsOfChange } from './checkChanges';
import { numberedCheckId } from './checkIds';
import { jsonBody } from './jsonBody';
import { listChecks } from './listChecks';
import { actorOf } from './actorOf';
import { createCheckReader } from './checkReader';
import { createCheckRunner } from './checkRuns';
import {
  CheckRequest,
  InvalidCheckError,
  parseCheckRequest,
} from './parseCheckRequest';
import { parseRevisionQuery } from './parseRevisionQuery';

/**
 * How many numbered ids (`x`, `x-2`, ... `x-20`) a check whose id comes from
 * its title may try before the caller is asked to give one.
 */
const MAX_TITLE_ID_CANDIDATES = 20;

/**
 * What {@link createChecksRouter} needs.
 * @internal
 */
export interface ChecksRouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  store: HealthcheckStore;
  catalog: CatalogService;
  /** The registry's rules of checks, with those modules add; the plugin's own by default. */
  checkRuleset?: PermissionRuleset<HealthCheckResource>;
  probeTypes: ProbeTypeRegistry;
  /** The shortest interval a check may have; see `validateHealthCheckSpec`. */
  minIntervalMs?: number;
  /** The secrets checks may reference; see `validateHealthCheckSpec`. */
  secrets?: Pick<ProbeSecrets, 'findUseProblems'>;
  /** `healthcheck.targets.allowPlaceholderHosts`; see `validateHealthCheckSpec`. */
  allowPlaceholderHosts?: boolean;
  /**
   * Called after each successful create, update and delete, with the
   * systems of the check before and after, for a system-scoped reconcile.
   * It should return quickly; what it throws is logged, not answered.
   */
  onChecksChanged?: (change: ChecksChange) => void;
  /**
   * Starts one run of each running slice of a check, off its schedule;
   * returns the runs started or joined (none for an unknown or paused
   * check). `caller` is whom the rate limit counts; it throws
   * `TooManyRequestsError` when they asked too often.
   */
  runCheck?: (checkId: string, caller: string) => Promise<CheckRunStarted[]>;
}

/**
 * The checks router: create, read, update, delete and run checks
 * (`/v1/checks/...`).
 * @internal
 */
export async function createChecksRouter(
  options: ChecksRouterOptions,
): Promise<express.Router> {
  const { logger, httpAuth, permissions, auditor, store, catalog, probeTypes } =
    options;
  const router = createTypedRouter();
  router.use(jsonBody());
  const access = new CheckAccess({
    catalog,
    permissions,
    ruleset: options.checkRuleset,
  });
  const { readCheck, authorizedCheck } = createCheckReader({
    store,
    catalog,
    access,
  });
  const runCheck = createCheckRunner({
    auditor,
    checks: { authorizedCheck },
    runCheck: options.runCheck,
  });

  const validation = {
    probeTypes,
    minIntervalMs: options.minIntervalMs,
    secrets: options.secrets && secretUsesOf(options.secrets),
    allowPlaceholderHosts: options.allowPlaceholderHosts,
    cron: maintenanceRecurrenceRules,
    source: 'api' as const,
  };

  async function authenticate(req: express.Request) {
    return await httpAuth.credentials(req, { allow: ['user', 'service'] });
  }

  async function authorizeCreate(credentials: BackstageCredentials) {
    const [decision] = await permissions.authorize(
      [{ permission: healthcheckCheckCreatePermission }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(
        `You may not do this: it needs the permission ${healthcheckCheckCreatePermission.name}`,
      );
    }
  }

  /**
   * The check if the caller may see it and it was made through the API;
   * 409 for a GitOps check, which is changed in Git; 403 unless the policy
   * allows `permission` on it.
   */
  async function authorizedApiCheck(
    id: string,
    credentials: BackstageCredentials,
    permission: CheckPermission,
  ): Promise<CheckDetails & { revision: number }> {
    const check = await readCheck(id, credentials);
    if (check.source.kind === 'gitops') {
      await access.authorize(checkResourceOf(check), credentials);
      throw gitOpsChangeConflict(id, check.source);
    }
    await access.authorize(checkResourceOf(check), credentials, permission);
    return check as CheckDetails & { revision: number };
  }

  /** 400 naming each system of the spec the caller cannot read. */
  async function refuseUnreadableSystems(
    systems: readonly string[],
    credentials: BackstageCredentials,
  ) {
    const problems = await access.unreadableSystems(systems, credentials);
    if (problems.length > 0) {
      throw new InvalidCheckError(problems);
    }
  }

  /** Runs a mutation as one audit event that succeeds or fails with it. */
  async function audited<T>(
    req: express.Request,
    eventId: 'check-create' | 'check-update' | 'check-delete',
    mutate: () => Promise<{ result: T; check: StoredCheck }>,
  ): Promise<T> {
    const auditorEvent: AuditorServiceEvent = await auditor.createEvent({
      eventId,
      severityLevel: 'medium',
      request: req,
      ...(req.params.id !== undefined && {
        meta: { checkId: req.params.id },
      }),
    });
    try {
      const { result, check } = await mutate();
      await auditorEvent.success({
        meta: { checkId: check.id, revision: check.revision },
      });
      return result;
    } catch (error) {
      await auditorEvent.fail({ error: toError(error) });
      throw error;
    }
  }

  function notifyChanged(
    checkId: string,
    before: StoredCheck | undefined,
    after: StoredCheck | undefined,
  ) {
    if (!options.onChecksChanged) {
      return;
    }
    const change = {
      checkId,
      systems: systemsOfChange(before?.spec, after?.spec),
    };
    try {
      options.onChecksChanged(change);
    } catch (error) {
      logger
        .child({ checkId })
        .warn('A listener of check changes failed', toError(error));
    }
  }

  async function createWithFreeId(
    request: CheckRequest,
    createdBy: string,
  ): Promise<StoredCheck> {
    const { title, spec } = request;
    if (!request.idDerivedFromTitle) {
      return await store.createCheck({
        id: request.id,
        title,
        spec,
        createdBy,
      });
    }
    for (let n = 1; n <= MAX_TITLE_ID_CANDIDATES; n++) {
      const id = numberedCheckId(request.id, n);
      try {
        return await store.createCheck({ id, title, spec, createdBy });
      } catch (error) {
        if (!isError(error) || error.name !== 'ConflictError') {
          throw error;
        }
      }
    }
    throw new ConflictError(
      `The ids ${request.id} to ${numberedCheckId(
        request.id,
        MAX_TITLE_ID_CANDIDATES,
      )} derived from the title are all taken; give the check an id`,
    );
  }

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/v1/checks', async (req, res) => {
    const credentials = await authenticate(req);
    const items = await listChecks({ store, catalog, access, credentials });
    res.json({ items });
  });

  router.post('/v1/checks', async (req, res) => {
    const credentials = await authenticate(req);
    const created = await audited(req, 'check-create', async () => {
      await authorizeCreate(credentials);
      const request = parseCheckRequest(req.body, {
        operation: 'create',
        validation,
      });
      await refuseUnreadableSystems(request.spec.systems, credentials);
      const check = await createWithFreeId(request, actorOf(credentials));
      return { result: check, check };
    });
    notifyChanged(created.id, undefined, created);
    res
      .status(201)
      .location(`${req.baseUrl}/v1/checks/${encodeURIComponent(created.id)}`)
      .json(apiCheckDetails(created));
  });

  router.get('/v1/checks/:id', async (req, res) => {
    const credentials = await authenticate(req);
    res.json(await authorizedCheck(req.params.id, credentials));
  });

  router.put('/v1/checks/:id', async (req, res) => {
    const credentials = await authenticate(req);
    const { id } = req.params;
    const { before, after } = await audited(req, 'check-update', async () => {
      const current = await authorizedApiCheck(
        id,
        credentials,
        healthcheckCheckUpdatePermission,
      );
      const request = parseCheckRequest(req.body, {
        operation: 'update',
        pathId: id,
        validation,
      });
      await refuseUnreadableSystems(request.spec.systems, credentials);
      const versions = await store.updateCheck({
        id,
        title: request.title,
        spec: request.spec,
        updatedBy: actorOf(credentials),
        // What was authorized, not a version someone saved since.
        expectedRevision: request.revision ?? current.revision,
      });
      return { result: versions, check: versions.after };
    });
    notifyChanged(id, before, after);
    res.json(apiCheckDetails(after));
  });

  router.delete('/v1/checks/:id', async (req, res) => {
    const credentials = await authenticate(req);
    const { id } = req.params;
    const deleted = await audited(req, 'check-delete', async () => {
      const expectedRevision = parseRevisionQuery(req.query.revision);
      const current = await authorizedApiCheck(
        id,
        credentials,
        healthcheckCheckDeletePermission,
      );
      const check = await store.deleteCheck(id, {
        // What was authorized, not a version someone saved since.
        expectedRevision: expectedRevision ?? current.revision,
      });
      return { result: check, check };
    });
    notifyChanged(id, deleted, undefined);
    res.status(204).end();
  });

  router.post('/v1/checks/:id/run', async (req, res) => {
    const credentials = await authenticate(req);
    try {
      const runs = await runCheck(req.params.id, credentials, { request: req });
      res.status(202).json({ items: runs });
    } catch (error) {
      if (error instanceof TooManyRequestsError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
      }
      throw error;
    }
  });

  router.get('/v1/probe-types', async (req, res) => {
    await authenticate(req);
    res.json({ items: probeTypes.list() });
  });

  return router;
}

/** A GitOps check is changed in Git: where, in a 409. */
function gitOpsChangeConflict(
  id: string,
  source: GitOpsCheckSource,
): ConflictError {
  const where = source.location
    ? `the HealthCheck entity ${source.entityRef} in ${source.location}`
    : `the HealthCheck entity ${source.entityRef} (the catalog records no location for it)`;
  return new ConflictError(
    `Check '${id}' is declared in Git, not through the API: change or delete ${where}, in Git`,
  );
}
