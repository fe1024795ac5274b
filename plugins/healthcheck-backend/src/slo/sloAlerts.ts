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
import type { OutboxDispatcher, OutboxWriter } from '../outbox';

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

/** The outbox kind of an SLO alert's notification. @internal */
export const SLO_ALERT_KIND = 'slo-alert';

/** An SLO alert as the outbox holds it: the notification to send. @internal */
export interface SloAlertEntry {
  entityRef: string;
  payload: ReturnType<typeof buildSloNotification>['payload'];
}

/**
 * Says how the outbox delivers SLO alerts: to the owner of the objective's
 * system, through the notifications service.
 * @internal
 */
export function handleSloAlerts(
  outbox: Pick<OutboxDispatcher, 'handle'>,
  notifications: Pick<NotificationService, 'send'>,
): void {
  outbox.handle(SLO_ALERT_KIND, async (entry: SloAlertEntry) => {
    await notifications.send({
      recipients: { type: 'entity', entityRef: entry.entityRef },
      payload: entry.payload,
    });
  });
}

/**
 * One evaluation of every objective: burn rates from the history, the
 * rules' decision against the conditions firing before, and a
 * notification to the system's owner for each condition that started or
 * stopped. A change is recorded in the transaction that writes its
 * notification to the outbox, which delivers it until accepted: never
 * recorded without its notification, never sent twice as the owner sees it
 * (its scope is the objective's and the severity's). An objective that
 * fails is logged and the others go on.
 *
 * @internal
 */
export async function evaluateSloAlerts(options: {
  objectives: readonly CatalogObjective[];
  reader: Pick<SloHistoryReader, 'read'>;
  store: Pick<DatabaseSloAlertStore, 'readFiring' | 'record' | 'prune'>;
  outbox: OutboxWriter;
  rules: readonly BurnRateAlertRule[];
  logger: LoggerService;
  now: number;
  signal?: AbortSignal;
}): Promise<{ notified: number }> {
  const { objectives, reader, store, outbox, rules, now } = options;
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
        await outbox.transaction(async tx => {
          await store.record(ref, change.rule.severity, change.kind, now, tx);
          await outbox.write(
            [
              {
                stream: JSON.stringify([SLO_ALERT_KIND, ref]),
                kind: SLO_ALERT_KIND,
                payload: notification satisfies SloAlertEntry,
              },
            ],
            now,
            tx,
          );
        });
        outbox.wake();
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
  outbox: OutboxWriter;
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
        outbox: options.outbox,
        rules: options.rules,
        logger: options.logger,
        now: now(),
        signal,
      });
    },
  });
}
