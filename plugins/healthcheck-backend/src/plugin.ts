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
  createHeartbeatOutage,
  createHeartbeatProbeType,
  DatabaseHeartbeatStore,
  fixDemoPingTokens,
  scheduleHeartbeatPruning,
} from './heartbeat';
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
  createOutboxMetrics,
  DatabaseOutbox,
  OutboxDispatcher,
} from './outbox';
import {
  createReconcileFollowUp,
  createRunFollowUp,
  EnvironmentTransitions,
  handleSystemAnnouncements,
  handleTransitionEffects,
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
  DatabaseSloAlertStore,
  handleSloAlerts,
  loadCatalogObjectives,
  ObjectiveAdmission,
  readSloAlertRules,
  scheduleSloAlerts,
  SloHistoryReader,
} from './slo';
import { createRouter } from './service/createRouter';
import { DatabaseMaintenanceStore } from './maintenance/DatabaseMaintenanceStore';
import { MaintenanceCalendar } from './maintenance/MaintenanceCalendar';
import { readCoverageSettings } from './ownership';
import { MaintenanceNotificationHold } from './maintenance/MaintenanceNotificationHold';
import {
  scheduleHeldNotificationRelease,
  scheduleMaintenancePrune,
} from './maintenance/scheduleMaintenanceTasks';
import { createSystemHealthReads } from './service/systemHealthReads';
import { systemHealthSources } from './service/systemHealthSources';
import { registerHealthActions } from './actions';

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
        // Pings taken while the database is away, and the time Vigil could
        // not hear any, which heartbeat deadlines wait out.
        const heartbeatOutage = await createHeartbeatOutage({
          database,
          store: heartbeats,
          config,
          logger: logger.child({ component: 'heartbeats' }),
          metrics,
        });
        lifecycle.addStartupHook(() => heartbeatOutage.start());
        lifecycle.addShutdownHook(() => heartbeatOutage.stop());
        probeTypes.add(
          createHeartbeatProbeType({
            store: heartbeats,
            deafSpans: heartbeatOutage.deafSpans,
          }),
        );
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
        // Windows and objectives reach only what their owner owns.
        const coverage = readCoverageSettings(config);
        const maintenance = new MaintenanceCalendar({
          catalog,
          auth,
          store: maintenanceStore,
          logger: logger.child({ component: 'maintenance' }),
          coverage,
        });
        const objectiveAdmission = new ObjectiveAdmission({
          catalog,
          auth,
          logger: logger.child({ component: 'slo' }),
          coverage,
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
        // This instance's id among those sharing the database.
        const membershipId = `${hostname()}-${randomUUID()}`;
        // What people receive waits here until delivered, whichever
        // instance delivers it.
        const outbox = new OutboxDispatcher({
          outbox: await DatabaseOutbox.create({ database }),
          instanceId: membershipId,
          logger: logger.child({ component: 'outbox' }),
          metrics: createOutboxMetrics(metrics),
        });
        const rollups = new RollupService({
          store: states,
          catalog,
          auth,
          logger: logger.child({ component: 'rollup' }),
          events,
          signals,
          outbox,
          upstreamAttribution: rollupSettings.notifications.upstreamAttribution,
          liveKeyOf,
          readModel,
        });
        handleSystemAnnouncements(outbox, rollups);
        const transitions = new EnvironmentTransitions({
          store: states,
          logger: logger.child({ component: 'transitions' }),
          events,
          notifications,
          rollups,
          notificationSettings: rollupSettings.notifications,
          notificationHold,
          outbox,
        });
        handleTransitionEffects(outbox, transitions);
        handleSloAlerts(outbox, notifications);
        await scheduleHeldNotificationRelease({
          scheduler,
          logger: logger.child({ component: 'maintenance' }),
          hold: notificationHold,
          transitions,
        });
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
        lifecycle.addStartupHook(() => {
          outbox.start();
          return probing.start();
        });
        lifecycle.addShutdownHook(async () => {
          // Receivers shut down beside Vigil (the notifications router
          // answers 503 from the first moment): what this instance writes
          // while it drains waits in the outbox for the others.
          await outbox.stop();
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
        const healthReadOptions = systemHealthSources({
          catalog,
          states,
          history,
          rollups,
          readModel,
          liveKeyOf,
          maintenance,
          sloReader,
          objectiveAdmission,
        });
        // The API and the actions answer from the same reads.
        const healthReads = createSystemHealthReads(healthReadOptions);
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
        const sloAlertRules = readSloAlertRules(config);
        await scheduleSloAlerts({
          scheduler,
          logger: logger.child({ component: 'slo' }),
          loadObjectives: async () =>
            loadCatalogObjectives({
              catalog,
              credentials: await auth.getOwnServiceCredentials(),
              admission: objectiveAdmission,
            }),
          reader: sloReader,
          store: new DatabaseSloAlertStore(sloDatabase),
          outbox,
          rules: sloAlertRules,
        });
        const { router, authPolicies } = await createRouter({
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
          allowPlaceholderHosts: desiredSliceSettings.allowPlaceholderHosts,
          healthReadOptions,
          healthReads,
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
          readRunningOfCheck: checkId => slices.readRunningOfCheck(checkId),
          runNow: (slice, at) => probing.engine.runner.runNow(slice, at),
        });
        httpRouter.use(router);
        for (const policy of authPolicies) {
          httpRouter.addAuthPolicy(policy);
        }
        logger.info(
          `Health checks ready; probe types: ${
            probeTypes.list().join(', ') || 'none yet'
          }`,
        );
      },
    });
  },
});
