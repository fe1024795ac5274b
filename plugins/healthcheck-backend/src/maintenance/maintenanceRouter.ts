import {
  AuditorService,
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  NotAllowedError,
  NotFoundError,
  toError,
} from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  canonicalEntityRef,
  healthcheckMaintenanceManagePermission,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import { readableEntityRefs } from '../permissions/readableEntityRefs';
import { createTypedRouter } from '../schema/createTypedRouter';
import type {
  DatabaseMaintenanceStore,
  StoredMaintenanceWindow,
} from './DatabaseMaintenanceStore';
import {
  apiMaintenanceWindow,
  MaintenanceCalendar,
} from './MaintenanceCalendar';
import type { MaintenanceWindow } from './maintenanceWindows';
import { nextWindow, WindowOccurrence, windowsActiveAt } from './occurrences';
import { parseMaintenanceWindowRequest } from './parseMaintenanceWindowRequest';

/**
 * What {@link createMaintenanceRouter} needs.
 * @internal
 */
export interface MaintenanceRouterOptions {
  httpAuth: HttpAuthService;
  permissions: Pick<PermissionsService, 'authorize'>;
  auditor: AuditorService;
  catalog: Pick<CatalogService, 'getEntitiesByRefs'>;
  store: Pick<DatabaseMaintenanceStore, 'create' | 'get' | 'end'>;
  calendar: Pick<MaintenanceCalendar, 'windows' | 'invalidate'>;
  now?: () => number;
}

/**
 * A window as the API answers it.
 * @internal
 */
export function maintenanceWindowDetails(
  window: MaintenanceWindow,
  now: number,
  stored?: StoredMaintenanceWindow,
) {
  const [current] = windowsActiveAt([window], now);
  const next = nextWindow([window], now);
  const occurrence = (o: WindowOccurrence) => ({
    windowId: o.windowId,
    start: new Date(o.startMs).toISOString(),
    end: new Date(o.endMs).toISOString(),
    ...(o.reason !== undefined && { reason: o.reason }),
  });
  return {
    id: window.id,
    source: window.source,
    ...(window.systems && { systems: [...window.systems] }),
    ...(window.checks && { checks: [...window.checks] }),
    ...(window.environments && { environments: [...window.environments] }),
    ...(window.reason !== undefined && { reason: window.reason }),
    ...(current && { current: occurrence(current) }),
    ...(next && { next: occurrence(next) }),
    ...(stored && { createdBy: stored.createdBy }),
    ...(stored?.endedBy && { endedBy: stored.endedBy }),
  };
}

/**
 * The routes of maintenance windows: list and read those of systems the
 * caller can read, open one over a system ("we are deploying now, 30
 * minutes"), end one early. Opening and ending are audited and need
 * `healthcheck.maintenance.manage` on the window's system (403 naming it).
 * @internal
 */
export function createMaintenanceRouter(
  options: MaintenanceRouterOptions,
): express.Router {
  const { httpAuth, permissions, auditor, catalog, store, calendar } = options;
  const now = options.now ?? Date.now;
  const router = createTypedRouter();

  async function authenticate(req: express.Request) {
    return await httpAuth.credentials(req, { allow: ['user', 'service'] });
  }

  /**
   * Refuses, naming each system, unless the policy lets the caller manage
   * the maintenance of every one: a decision per System entity, so a
   * policy may allow it only for the systems the caller owns.
   */
  async function authorizeManage(
    systemRefs: readonly string[],
    credentials: BackstageCredentials,
  ) {
    const decisions = await permissions.authorize(
      systemRefs.map(resourceRef => ({
        permission: healthcheckMaintenanceManagePermission,
        resourceRef,
      })),
      { credentials },
    );
    const refused = systemRefs.filter(
      (_ref, index) => decisions[index].result !== AuthorizeResult.ALLOW,
    );
    if (refused.length > 0) {
      throw new NotAllowedError(
        `You may not manage the maintenance of ${refused.join(
          ', ',
        )}: it needs the permission ${
          healthcheckMaintenanceManagePermission.name
        } on ${refused.length === 1 ? 'that system' : 'those systems'}`,
      );
    }
  }

  /** The windows whose every system (or, naming none, every check) the caller can read. */
  async function visibleWindows(
    windows: MaintenanceWindow[],
    credentials: BackstageCredentials,
  ): Promise<MaintenanceWindow[]> {
    const named = (window: MaintenanceWindow) =>
      window.systems ?? window.checks?.filter(id => id.includes(':')) ?? [];
    const readable = await readableEntityRefs(
      catalog,
      windows.flatMap(named),
      credentials,
    );
    return windows.filter(window => {
      const refs = named(window);
      return refs.length > 0 && refs.every(ref => readable.has(ref));
    });
  }

  async function visibleWindow(id: string, credentials: BackstageCredentials) {
    const wanted = id.includes(':')
      ? canonicalEntityRef(id, { defaultKind: 'maintenancewindow' }) ?? id
      : id;
    const found = (await calendar.windows()).find(w => w.id === wanted);
    const stored = found ? undefined : await store.get(id);
    const window = found ?? (stored && apiMaintenanceWindow(stored));
    const [visible] = window ? await visibleWindows([window], credentials) : [];
    if (!visible) {
      throw new NotFoundError(`There is no maintenance window with id '${id}'`);
    }
    return visible;
  }

  router.get('/v1/maintenance-windows', async (req, res) => {
    const credentials = await authenticate(req);
    const at = now();
    let windows = await calendar.windows();
    if (req.query.system !== undefined) {
      const systemRef = canonicalEntityRef(req.query.system, {
        defaultKind: 'system',
      });
      windows = windows.filter(
        w =>
          systemRef &&
          (w.systems === undefined || w.systems.includes(systemRef)),
      );
    }
    // In force or ahead: one that is over is history.
    const current = windows.filter(
      w => windowsActiveAt([w], at).length > 0 || nextWindow([w], at),
    );
    const visible = await visibleWindows(current, credentials);
    res.json({
      items: visible.map(window => maintenanceWindowDetails(window, at)),
    });
  });

  router.post('/v1/maintenance-windows', async (req, res) => {
    const credentials = await authenticate(req);
    const auditorEvent = await auditor.createEvent({
      eventId: 'maintenance-window-create',
      severityLevel: 'medium',
      request: req,
    });
    try {
      const request = parseMaintenanceWindowRequest(req.body, now());
      const readable = await readableEntityRefs(
        catalog,
        [request.systemRef],
        credentials,
      );
      if (!readable.has(request.systemRef)) {
        throw new NotFoundError(
          `There is no system ${request.systemRef} that you can read in the catalog`,
        );
      }
      await authorizeManage([request.systemRef], credentials);
      const principal = credentials.principal;
      const stored = await store.create({
        ...request,
        createdBy:
          principal.type === 'user'
            ? principal.userEntityRef
            : principal.subject,
      });
      calendar.invalidate();
      await auditorEvent.success({
        meta: {
          windowId: stored.id,
          systemRef: stored.systemRef,
          startsAt: new Date(stored.startsAt).toISOString(),
          endsAt: new Date(stored.endsAt).toISOString(),
        },
      });
      res
        .status(201)
        .location(
          `${req.baseUrl}/v1/maintenance-windows/${encodeURIComponent(
            stored.id,
          )}`,
        )
        .json(
          maintenanceWindowDetails(apiMaintenanceWindow(stored), now(), stored),
        );
    } catch (error) {
      await auditorEvent.fail({ error: toError(error) });
      throw error;
    }
  });

  router.get('/v1/maintenance-windows/:id', async (req, res) => {
    const credentials = await authenticate(req);
    const window = await visibleWindow(req.params.id, credentials);
    const stored =
      window.source === 'api' ? await store.get(window.id) : undefined;
    res.json(maintenanceWindowDetails(window, now(), stored));
  });

  router.post('/v1/maintenance-windows/:id/end', async (req, res) => {
    const credentials = await authenticate(req);
    const { id } = req.params;
    const auditorEvent = await auditor.createEvent({
      eventId: 'maintenance-window-end',
      severityLevel: 'medium',
      request: req,
      meta: { windowId: id },
    });
    try {
      const window = await visibleWindow(id, credentials);
      await authorizeManage(window.systems ?? [], credentials);
      if (window.source === 'catalog') {
        throw new ConflictError(
          `Maintenance window '${window.id}' is declared in the catalog: change or delete its MaintenanceWindow entity, in Git`,
        );
      }
      const principal = credentials.principal;
      const ended = await store.end(
        window.id,
        principal.type === 'user' ? principal.userEntityRef : principal.subject,
      );
      calendar.invalidate();
      await auditorEvent.success({
        meta: { windowId: id, endsAt: new Date(ended.endsAt).toISOString() },
      });
      res.json(
        maintenanceWindowDetails(apiMaintenanceWindow(ended), now(), ended),
      );
    } catch (error) {
      await auditorEvent.fail({ error: toError(error) });
      throw error;
    }
  });

  return router as unknown as express.Router;
}
