import type {
  AuditorService,
  AuthService,
  DiscoveryService,
  HttpAuthService,
  HttpRouterServiceAuthPolicy,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import type { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import type express from 'express';
import {
  badgeAuthPolicy,
  badgeLoaders,
  createBadgeRouter,
  readBadgeSettings,
} from '../badges';
import { createBadgeAuthorizer } from '../badges/badgeVisibility';
import type { DatabaseHealthcheckStore } from '../database/DatabaseHealthcheckStore';
import {
  createHeartbeatRouter,
  type DatabaseHeartbeatStore,
  type HeartbeatOutage,
  PING_PATH,
  PingRateLimiter,
  readHeartbeatSettings,
} from '../heartbeat';
import type { DatabaseMaintenanceStore } from '../maintenance/DatabaseMaintenanceStore';
import type { MaintenanceCalendar } from '../maintenance/MaintenanceCalendar';
import { createMaintenanceRouter } from '../maintenance/maintenanceRouter';
import { systemMaintenance } from '../maintenance/systemMaintenance';
import type { HistoryStore } from '../model';
import { CheckAccess } from '../permissions/CheckAccess';
import type { HealthCheckResource } from '../permissions/checkResource';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import type { RollupService } from '../rollup';
import {
  createSloRouter,
  loadCatalogObjectives,
  type BurnRateAlertRule,
  type ObjectiveAdmission,
  type SloHistoryReader,
  summarizeObjectives,
} from '../slo';
import { createCheckReader } from './checkReader';
import { createChecksRouter, type ChecksRouterOptions } from './checksRouter';
import { createApiRouter } from './createApiRouter';
import type {
  SystemHealthReads,
  SystemHealthReadsOptions,
} from './systemHealthReads';
import { createSystemsRouter } from './systemsRouter';

/**
 * What {@link createRouter} builds the plugin's HTTP API from: the stores
 * and services it serves, and what the run path offers it.
 * @internal
 */
export interface RouterOptions {
  logger: LoggerService;
  config: Config;
  httpAuth: HttpAuthService;
  auth: AuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  catalog: CatalogService;
  discovery: DiscoveryService;
  store: DatabaseHealthcheckStore;
  history: HistoryStore;
  heartbeats: DatabaseHeartbeatStore;
  /** Where pings go while the database is away; without it they fail. */
  heartbeatOutage?: Pick<HeartbeatOutage, 'pings' | 'deafSpans'>;
  maintenanceStore: DatabaseMaintenanceStore;
  maintenance: MaintenanceCalendar;
  rollups: Pick<RollupService, 'getOrEmpty'>;
  sloReader: SloHistoryReader;
  sloAlertRules: BurnRateAlertRule[];
  /** Which objectives count at all (their owner owns their system). */
  objectiveAdmission: ObjectiveAdmission;
  checkRuleset: PermissionRuleset<HealthCheckResource>;
  probeTypes: ProbeTypeRegistry;
  secrets: ProbeSecrets;
  minIntervalMs?: number;
  allowPlaceholderHosts: boolean;
  /** What the systems router and the badges read system health from. */
  healthReadOptions: SystemHealthReadsOptions & {
    states: DatabaseStateStore;
    history: HistoryStore;
    loadSystemSlices: NonNullable<SystemHealthReadsOptions['loadSystemSlices']>;
  };
  healthReads: SystemHealthReads;
  runCheck: ChecksRouterOptions['runCheck'];
  /** An edit through the API: its systems are reconciled at once. */
  onChecksChanged: ChecksRouterOptions['onChecksChanged'];
  readRunningOfCheck: Parameters<
    typeof createHeartbeatRouter
  >[0]['readRunningOfCheck'];
  runNow: Parameters<typeof createHeartbeatRouter>[0]['runNow'];
}

/**
 * The plugin's HTTP API under `/api/healthcheck`: the heartbeat pings, the
 * checks, systems, badge, maintenance and objectives routers behind one
 * OpenAPI validation, and the auth policies of the routes that take no
 * Backstage credentials.
 * @internal
 */
export async function createRouter(options: RouterOptions): Promise<{
  router: express.Router;
  authPolicies: HttpRouterServiceAuthPolicy[];
}> {
  const {
    logger,
    config,
    httpAuth,
    auth,
    permissions,
    auditor,
    catalog,
    discovery,
    store,
    history,
    heartbeats,
    heartbeatOutage,
    maintenanceStore,
    maintenance,
    rollups,
    sloReader,
    sloAlertRules,
    objectiveAdmission,
    checkRuleset,
    probeTypes,
    secrets,
    minIntervalMs,
    allowPlaceholderHosts,
    healthReadOptions,
    healthReads,
    runCheck,
    onChecksChanged,
    readRunningOfCheck,
    runNow,
  } = options;
  const checksRouter = await createChecksRouter({
    logger,
    httpAuth,
    permissions,
    auditor,
    store,
    catalog,
    checkRuleset,
    probeTypes,
    minIntervalMs,
    secrets,
    allowPlaceholderHosts,
    runCheck,
    onChecksChanged,
  });
  const systemsRouter = createSystemsRouter({
    ...healthReadOptions,
    httpAuth,
    permissions,
    checkRuleset,
    checks: store,
    reads: healthReads,
  });
  const badgeLogger = logger.child({ component: 'badges' });
  const badgeSettings = readBadgeSettings(config);
  const badgeRouter = createBadgeRouter({
    logger: badgeLogger,
    authorize: createBadgeAuthorizer({
      httpAuth,
      auth,
      permissions,
      settings: badgeSettings,
    }),
    ...badgeLoaders({
      logger: badgeLogger,
      loadRollup: systemRef => rollups.getOrEmpty(systemRef),
      history,
    }),
    loadMaintenance: async systemRef =>
      systemMaintenance(
        await maintenance.windows(),
        await healthReadOptions.loadSystemSlices(systemRef),
        Date.now(),
      ),
    // The badge's caller may read the system (authorize said so);
    // its objectives are read as the plugin, as its rollup is.
    loadObjectives: async systemRef =>
      summarizeObjectives({
        objectives: await loadCatalogObjectives({
          catalog,
          credentials: await auth.getOwnServiceCredentials(),
          admission: objectiveAdmission,
          systemRef,
        }),
        reader: sloReader,
        now: Date.now(),
      }),
  });
  const maintenanceRouter = createMaintenanceRouter({
    httpAuth,
    permissions,
    auditor,
    catalog,
    store: maintenanceStore,
    calendar: maintenance,
  });
  const sloRouter = createSloRouter({
    httpAuth,
    catalog,
    admission: objectiveAdmission,
    reader: sloReader,
    rules: sloAlertRules,
  });
  const heartbeatRouter = createHeartbeatRouter({
    logger: logger.child({ component: 'heartbeats' }),
    httpAuth,
    store: heartbeats,
    limiter: new PingRateLimiter(readHeartbeatSettings(config)),
    checks: createCheckReader({
      store,
      catalog,
      access: new CheckAccess({
        catalog,
        permissions,
        ruleset: checkRuleset,
      }),
    }),
    readRunningOfCheck,
    runNow,
    redact: text => secrets.redact(text),
    pings: heartbeatOutage?.pings,
    deafSpans: heartbeatOutage?.deafSpans,
    baseUrl: () => discovery.getExternalBaseUrl('healthcheck'),
  });
  return {
    router: createApiRouter([
      heartbeatRouter,
      checksRouter,
      systemsRouter,
      badgeRouter,
      maintenanceRouter,
      sloRouter,
    ]),
    authPolicies: [
      badgeAuthPolicy(badgeSettings),
      { path: '/health', allow: 'unauthenticated' },
      // A ping's token is its credential: jobs have no Backstage identity.
      { path: PING_PATH, allow: 'unauthenticated' },
    ],
  };
}
