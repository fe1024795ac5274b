import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import {
  BurnRateAlertRule,
  decideBurnRateAlerts,
  DEFAULT_BURN_RATE_ALERT_RULES,
} from './burnRateAlerts';
import { buildSloNotification } from './buildSloNotification';
import type { CatalogObjective } from './catalogObjectives';
import { computeSlo } from './computeSlo';
import type { DatabaseSloAlertStore } from './DatabaseSloAlertStore';
import { readObjectiveSlices, SloHistoryReader } from './SloHistoryReader';

/** @internal */
export const SLO_ALERTS_TASK_ID = 'healthcheck-slo-alerts';

/**
 * The burn-rate rules from `healthcheck.slo.alerts.page.burnRate` and
 * `healthcheck.slo.alerts.ticket.burnRate` (defaults 14.4 and 6); the
 * windows are the SRE workbook's, 1 h and 5 m, 6 h and 30 m.
 *
 * @throws InputError naming the key of a burn rate that is not a number
 *   above 1
 * @internal
 */
export function readSloAlertRules(config: Config): BurnRateAlertRule[] {
  return DEFAULT_BURN_RATE_ALERT_RULES.map(rule => {
    const key = `healthcheck.slo.alerts.${rule.severity}.burnRate`;
    const raw = config.getOptional(key);
    if (raw === undefined) {
      return rule;
    }
    const value = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 1) {
      throw new InputError(
        `Invalid ${key} ${JSON.stringify(
          raw,
        )}: a burn rate is a number above 1 (1 spends exactly the budget over the window)`,
      );
    }
    return { ...rule, burnRate: value };
  });
}

/**
 * One evaluation of every objective: burn rates from the history, the
 * rules' decision against the conditions firing before, and a
 * notification to the system's owner for each condition that started or
 * stopped. A change is recorded after its notification is sent, so a
 * failed send is retried at the next evaluation; an objective that fails
 * is logged and the others go on.
 *
 * @internal
 */
export async function evaluateSloAlerts(options: {
  objectives: readonly CatalogObjective[];
  reader: Pick<SloHistoryReader, 'read'>;
  store: Pick<DatabaseSloAlertStore, 'readFiring' | 'record' | 'prune'>;
  notifications: Pick<NotificationService, 'send'>;
  rules: readonly BurnRateAlertRule[];
  logger: LoggerService;
  now: number;
  signal?: AbortSignal;
}): Promise<{ notified: number }> {
  const { objectives, reader, store, notifications, rules, now } = options;
  const firingBefore = await store.readFiring();
  let notified = 0;
  for (const { ref, title, objective } of objectives) {
    if (options.signal?.aborted) {
      break;
    }
    try {
      const status = computeSlo(
        objective,
        await readObjectiveSlices(reader, objective, now),
        now,
      );
      const { changes } = decideBurnRateAlerts({
        burnRates: status.burnRates,
        rules,
        firingBefore: firingBefore.get(ref) ?? new Set(),
      });
      for (const change of changes) {
        const notification = buildSloNotification(
          {
            objectiveRef: ref,
            title,
            systemRef: objective.systemRef,
            environment: objective.environment,
            target: objective.target,
          },
          change,
          status.burnRates,
        );
        await notifications.send({
          recipients: { type: 'entity', entityRef: notification.entityRef },
          payload: notification.payload,
        });
        await store.record(ref, change.rule.severity, change.kind, now);
        notified++;
      }
    } catch (error) {
      options.logger.warn(
        `Could not evaluate the objective ${ref}`,
        error as Error,
      );
    }
  }
  if (!options.signal?.aborted) {
    await store.prune(new Set(objectives.map(objective => objective.ref)));
  }
  return { notified };
}

/**
 * Evaluates the objectives every minute on one instance at a time: the
 * shortest alert window is 5 minutes.
 *
 * @internal
 */
export async function scheduleSloAlerts(options: {
  scheduler: SchedulerService;
  logger: LoggerService;
  loadObjectives: () => Promise<CatalogObjective[]>;
  reader: Pick<SloHistoryReader, 'read'>;
  store: DatabaseSloAlertStore;
  notifications: Pick<NotificationService, 'send'>;
  rules: readonly BurnRateAlertRule[];
  now?: () => number;
}): Promise<void> {
  const now = options.now ?? Date.now;
  await options.scheduler.scheduleTask({
    id: SLO_ALERTS_TASK_ID,
    scope: 'global',
    frequency: { minutes: 1 },
    timeout: { minutes: 5 },
    initialDelay: { minutes: 1 },
    fn: async (signal: AbortSignal) => {
      await evaluateSloAlerts({
        objectives: await options.loadObjectives(),
        reader: options.reader,
        store: options.store,
        notifications: options.notifications,
        rules: options.rules,
        logger: options.logger,
        now: now(),
        signal,
      });
    },
  });
}
