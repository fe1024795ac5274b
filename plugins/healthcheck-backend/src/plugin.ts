import {
  healthCheckProbesExtensionPoint,
  maintenanceRecurrenceRules,
  ProbeSecrets,
  readConfigDuration,
  secretUsesOf,
} from '@vigil/plugin-healthcheck-node';
import { validateHealthCheckSpec } from '@vigil/plugin-healthcheck-common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type BackstageCredentials,
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import {
  actionsRegistryServiceRef,
  metricsServiceRef,
} from '@backstage/backend-plugin-api/alpha';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { eventsServiceRef } from '@backstage/plugin-events-node';
import { notificationService } from '@backstage/plugin-notifications-node';
import { signalsServiceRef } from '@backstage/plugin-signals-node';
import { DatabaseHealthcheckStore } from './database/DatabaseHealthcheckStore';
import { readDeploymentKey } from './database/deploymentKeys';
import { createInstanceRunner } from './runs/createInstanceRunner';
import {
  createHeartbeatProbeType,
  createHeartbeatRouter,
  DatabaseHeartbeatStore,
  fixDemoPingTokens,
  PING_PATH,
  PingRateLimiter,
  readHeartbeatSettings,
  scheduleHeartbeatPruning,
} from './heartbeat';
import { CheckAccess } from './permissions/CheckAccess';
import { createCheckReader } from './service/checkReader';
import { createRunCheckNow } from './runs/runCheckNow';
import {
  readRunNowRateSettings,
  RunNowRateLimiter,
} from './runs/runNowRateLimit';
import { createBuiltinProbeTypes } from './probes/builtinProbeTypes';
import { CaresAddressResolver } from './probes/CaresAddressResolver';
import { readNetworkPolicy } from './probes/networkGuard';
import { ProbeTypeRegistry } from './probes/ProbeTypeRegistry';
import { DatabaseSliceStore } from './database/DatabaseSliceStore';
import { DatabaseStateStore } from './database/DatabaseStateStore';
import { CachedSliceStates } from './runs/CachedSliceStates';
import { registerCheckResourceType } from './permissions/registerCheckResourceType';
import {
  createReconcileFollowUp,
  createRunFollowUp,
  EnvironmentTransitions,
  readRollupSettings,
  RollupConsumer,
  RollupService,
} from './rollup';
import { liveKeysUnder } from './rollup/liveKeys';
import { startSystemReadModel } from './readModel';
import {
  CatalogChangeListener,
  CatalogChangePoller,
  createReconcileLock,
  readDesiredSliceSettings,
  readReconcileSettings,
  Reconciler,
  scheduleReconcileTasks,
  sliceSecretProblems,
} from './reconciler';
import {
  badgeAuthPolicy,
  badgeLoaders,
  createBadgeRouter,
  readBadgeSettings,
} from './badges';
import { createBadgeAuthorizer } from './badges/badgeVisibility';
import {
  DatabaseHistoryStore,
  readHistorySettings,
  scheduleHistoryMaintenance,
} from './history';
import {
  createSweepMetrics,
  HealthSweep,
  readSweepSettings,
  scheduleSweep,
} from './sweep';
import { migratedClient } from './database/migrations';
import {
  createSloRouter,
  DatabaseSloAlertStore,
  loadCatalogObjectives,
  readSloAlertRules,
  scheduleSloAlerts,
  SloHistoryReader,
  summarizeObjectives,
  systemSloSummaries,
} from './slo';
import { createApiRouter } from './service/createApiRouter';
import { DatabaseMaintenanceStore } from './maintenance/DatabaseMaintenanceStore';
import { MaintenanceCalendar } from './maintenance/MaintenanceCalendar';
import { createMaintenanceRouter } from './maintenance/maintenanceRouter';
import { MaintenanceNotificationHold } from './maintenance/MaintenanceNotificationHold';
import { systemMaintenance } from './maintenance/systemMaintenance';
import {
  scheduleHeldNotificationRelease,
  scheduleMaintenancePrune,
} from './maintenance/scheduleMaintenanceTasks';
import { createSystemsRouter } from './service/systemsRouter';
import { createSystemHealthReads } from './service/systemHealthReads';
import { registerHealthActions } from './actions';
import { createChecksRouter } from './service/checksRouter';

/**
 * The Vigil health-check backend plugin, served under `/api/healthcheck`.
 *
 * @public
 */
export const healthcheckPlugin = createBackendPlugin({
  pluginId: 'healthcheck',
  register(env) {
    const probeTypes = new ProbeTypeRegistry();
    env.registerExtensionPoint(healthCheckProbesExtensionPoint, {
      addProbeType: probeType => probeTypes.add(probeType),
    });

    env.registerInit({
      deps: {
        logger: coreServices.logger,
        database: coreServices.database,
        httpRouter: coreServices.httpRouter,
        httpAuth: coreServices.httpAuth,
        auth: coreServices.auth,
        catalog: catalogServiceRef,
        config: coreServices.rootConfig,
        lifecycle: coreServices.lifecycle,
        metrics: metricsServiceRef,
        permissions: coreServices.permissions,
        permissionsRegistry: coreServices.permissionsRegistry,
        auditor: coreServices.auditor,
        scheduler: coreServices.scheduler,
        events: eventsServiceRef,
        signals: signalsServiceRef,
        notifications: notificationService,
        actionsRegistry: actionsRegistryServiceRef,
        discovery: coreServices.discovery,
      },
      async init({
        logger,
        database,
        httpRouter,
        httpAuth,
        auth,
        catalog,
        config,
        lifecycle,
        metrics,
        permissions,
        permissionsRegistry,
        auditor,
        scheduler,
        events,
        signals,
        notifications,
        actionsRegistry,
        discovery,
      }) {
        const secrets = ProbeSecrets.fromConfig(config, { logger });
        const heartbeats = await DatabaseHeartbeatStore.create({ database });
        probeTypes.add(createHeartbeatProbeType({ store: heartbeats }));
        await fixDemoPingTokens(config, heartbeats, logger);
        await scheduleHeartbeatPruning({
          scheduler,
          store: heartbeats,
          logger: logger.child({ component: 'heartbeats' }),
        });
        for (const probeType of createBuiltinProbeTypes({
          networkPolicy: readNetworkPolicy(config),
          secrets,
          resolve: CaresAddressResolver.fromConfig(config).resolve,
        })) {
          probeTypes.add(probeType);
        }
        const minIntervalMs = readConfigDuration(
          config,
          'healthcheck.minimumInterval',
        );
        const desiredSliceSettings = readDesiredSliceSettings(config);
        const store = await DatabaseHealthcheckStore.create({ database });
        const slices = await DatabaseSliceStore.create({ database });
        const states = await DatabaseStateStore.create({ database });
        const history = await DatabaseHistoryStore.create({ database });
        const liveKeyOf = liveKeysUnder(
          await readDeploymentKey(database, 'live-keys'),
        );
        const historySettings = readHistorySettings(config, logger);
        await scheduleHistoryMaintenance({
          scheduler,
          logger: logger.child({ component: 'history' }),
          store: history,
          settings: historySettings,
        });
        const maintenanceStore = await DatabaseMaintenanceStore.create({
          database,
        });
        const maintenance = new MaintenanceCalendar({
          catalog,
          auth,
          store: maintenanceStore,
          logger: logger.child({ component: 'maintenance' }),
        });
        await scheduleMaintenancePrune({
          scheduler,
          logger: logger.child({ component: 'maintenance' }),
          store: maintenanceStore,
          retentionMs: historySettings.aggregateRetentionMs,
        });
        // Service-level objectives: read from the history's tables,
        // alerting through the system owner's notifications.
        const sloDatabase = await migratedClient(database);
        const sloReader = new SloHistoryReader(sloDatabase, {
          rawRetentionMs: historySettings.runRetentionMs,
          maintenance,
        });
        const notificationHold = new MaintenanceNotificationHold({
          calendar: maintenance,
          store: maintenanceStore,
        });
        // Rollups and matrices served from memory, current across instances.
        const readModel = startSystemReadModel({
          knex: slices.knex,
          store: states,
          logger: logger.child({ component: 'read-model' }),
        });
        const rollupSettings = readRollupSettings(config);
        const rollups = new RollupService({
          store: states,
          catalog,
          auth,
          logger: logger.child({ component: 'rollup' }),
          events,
          signals,
          liveKeyOf,
          readModel,
        });
        const transitions = new EnvironmentTransitions({
          store: states,
          logger: logger.child({ component: 'transitions' }),
          events,
          notifications,
          rollups,
          notificationSettings: rollupSettings.notifications,
          notificationHold,
        });
        await scheduleHeldNotificationRelease({
          scheduler,
          logger: logger.child({ component: 'maintenance' }),
          hold: notificationHold,
          transitions,
        });
        // This instance's id among those sharing the database.
        const membershipId = `${hostname()}-${randomUUID()}`;
        const rollupConsumer = new RollupConsumer({
          store: states,
          rollups,
          logger: logger.child({ component: 'rollup' }),
          instanceId: membershipId,
          windowMs: rollupSettings.windowMs,
        });
        // Re-derives what the live path missed; `sweep.rederiveNow` is also
        // for whoever knows durable state moved without its follow-ups.
        const sweep = new HealthSweep({
          store: states,
          transitions,
          rollups,
          logger: logger.child({ component: 'sweep' }),
          metrics: createSweepMetrics(metrics),
          rollupWindowMs: rollupSettings.windowMs,
        });
        await scheduleSweep({
          scheduler,
          sweep,
          settings: readSweepSettings(config),
        });
        const reconcileFollowUp = createReconcileFollowUp({
          transitions,
          requestRollup: systemRef =>
            rollupConsumer.requestRecompute(systemRef),
        });
        const reconciler = new Reconciler({
          catalog,
          auth,
          logger: logger.child({ component: 'reconciler' }),
          listStoredChecks: () => store.listChecks(),
          slices,
          lock: createReconcileLock(slices.knex),
          // The same judgement as the catalog's and the API's, with the
          // probe types that modules added, which the catalog cannot see.
          validateSpec: (spec, context) =>
            validateHealthCheckSpec(spec, {
              probeTypes,
              minIntervalMs,
              secrets: secretUsesOf(secrets),
              cron: maintenanceRecurrenceRules,
              ...context,
              allowPlaceholderHosts: desiredSliceSettings.allowPlaceholderHosts,
            }),
          validateSlice: slice => sliceSecretProblems(secrets, slice),
          settings: desiredSliceSettings,
          // Full and scoped passes alike: the health of what they changed.
          onSystemsChanged: reconcileFollowUp,
        });
        const probing = await createInstanceRunner({
          config,
          logger,
          database,
          slices,
          probeTypes,
          metrics,
          states: new CachedSliceStates({
            readSliceStates: ids => states.readSliceStates(ids),
          }),
          instanceId: membershipId,
          rederive: options => sweep.rederiveNow(options),
          afterComplete: createRunFollowUp({
            store: states,
            transitions,
            logger,
            requestRollup: systemRef =>
              rollupConsumer.requestRecompute(systemRef),
          }),
        });
        await rollupConsumer.subscribe(events);
        await scheduleReconcileTasks({
          scheduler,
          logger,
          settings: readReconcileSettings(config),
          reconciler,
          poller: new CatalogChangePoller({
            catalog,
            auth,
            logger: logger.child({ component: 'catalog-changes' }),
            slices,
            reconciler,
          }),
          slices,
          onSlicesChanged: () => probing.engine.scheduler.refreshDesired(),
        });
        // Changes the catalog module announces, in seconds; the poll above
        // is the fallback and finds deletions.
        const catalogChanges = new CatalogChangeListener({
          reconciler,
          logger: logger.child({ component: 'catalog-changes' }),
          onSlicesChanged: () => probing.engine.scheduler.refreshDesired(),
        });
        await catalogChanges.subscribe(events);
        lifecycle.addStartupHook(() => probing.start());
        lifecycle.addShutdownHook(async () => {
          catalogChanges.stop();
          await probing.stop();
          await rollupConsumer.stop();
          await readModel?.stop();
        });

        const checkRuleset = registerCheckResourceType({
          permissionsRegistry,
          store,
          catalog,
          auth,
        });
        // One rate limit per caller, whether they ask through the API or an action.
        const runCheck = createRunCheckNow({
          readRunningOfCheck: checkId => slices.readRunningOfCheck(checkId),
          runNow: (slice, at) => probing.engine.runner.runNow(slice, at),
          limiter: new RunNowRateLimiter(readRunNowRateSettings(config)),
          logger,
        });
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
          allowPlaceholderHosts: desiredSliceSettings.allowPlaceholderHosts,
          runCheck,
          // An edit through the API converges its systems at once, and
          // this instance picks the result up without waiting.
          onChecksChanged: change => {
            reconciler
              .reconcileSystems(change.systems)
              .then(() => probing.engine.scheduler.refreshDesired())
              .catch(error =>
                logger.warn(
                  `Reconciling the systems of check ${change.checkId} failed; the next full pass will`,
                  error,
                ),
              );
          },
        });
        const healthReadOptions = {
          catalog,
          states,
          history,
          loadRollup: (systemRef: string) => rollups.get(systemRef),
          loadRollups: (systemRefs: readonly string[]) =>
            rollups.getMany(systemRefs),
          loadSystemSlices: async (systemRef: string) =>
            readModel?.read(systemRef)?.slices ??
            (await states.readSystemSlices(systemRef)),
          liveKeyOf,
          maintenanceOf: async (
            systemSlices: Parameters<typeof systemMaintenance>[1],
          ) =>
            systemMaintenance(
              await maintenance.windows(),
              systemSlices,
              Date.now(),
            ),
          sloSummaries: (
            systemRefs: readonly string[],
            credentials: BackstageCredentials,
          ) =>
            systemSloSummaries({
              catalog,
              reader: sloReader,
              credentials,
              systemRefs,
              now: Date.now(),
            }),
        };
        // The API and the actions answer from the same reads.
        const healthReads = createSystemHealthReads(healthReadOptions);
        const systemsRouter = createSystemsRouter({
          ...healthReadOptions,
          httpAuth,
          permissions,
          checkRuleset,
          checks: store,
          reads: healthReads,
        });
        registerHealthActions({
          actionsRegistry,
          reads: healthReads,
          auditor,
          store,
          catalog,
          permissions,
          checkRuleset,
          runCheck,
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
        const sloAlertRules = readSloAlertRules(config);
        await scheduleSloAlerts({
          scheduler,
          logger: logger.child({ component: 'slo' }),
          loadObjectives: async () =>
            loadCatalogObjectives({
              catalog,
              credentials: await auth.getOwnServiceCredentials(),
            }),
          reader: sloReader,
          store: new DatabaseSloAlertStore(sloDatabase),
          notifications,
          rules: sloAlertRules,
        });
        const sloRouter = createSloRouter({
          httpAuth,
          catalog,
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
          readRunningOfCheck: checkId => slices.readRunningOfCheck(checkId),
          runNow: (slice, at) => probing.engine.runner.runNow(slice, at),
          redact: text => secrets.redact(text),
          baseUrl: () => discovery.getExternalBaseUrl('healthcheck'),
        });
        httpRouter.use(
          createApiRouter([
            heartbeatRouter,
            checksRouter,
            systemsRouter,
            badgeRouter,
            maintenanceRouter,
            sloRouter,
          ]),
        );
        httpRouter.addAuthPolicy(badgeAuthPolicy(badgeSettings));
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
        // A ping's token is its credential: jobs have no Backstage identity.
        httpRouter.addAuthPolicy({ path: PING_PATH, allow: 'unauthenticated' });
        logger.info(
          `Health checks ready; probe types: ${
            probeTypes.list().join(', ') || 'none yet'
          }`,
        );
      },
    });
  },
});
