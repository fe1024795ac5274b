import { parseEntityRef } from '@backstage/catalog-model';
import type { EnvironmentNotification } from '../rollup/buildNotification';
import type { BurnRateAlertChange } from './burnRateAlerts';
import type { BurnRateWindow } from './computeSlo';

/**
 * The objective a notification is about: its entity ref, what it promises
 * and where.
 *
 * @internal
 */
export interface NotifiedObjective {
  /** The ServiceLevelObjective entity ref, canonical. */
  objectiveRef: string;
  /** What people call it: its displayName, else its entity name. */
  title: string;
  systemRef: string;
  environment: string;
  /** The target as a ratio. */
  target: number;
}

/**
 * The notification to the system's owner for one change of a burn-rate
 * condition. Its scope is one per (objective, severity), so the recovery
 * replaces the alert it ends in the owner's list, and a condition that
 * fires again updates the same one.
 *
 * @internal
 */
export function buildSloNotification(
  objective: NotifiedObjective,
  change: BurnRateAlertChange,
  burnRates: Readonly<Partial<Record<BurnRateWindow, number | undefined>>>,
): EnvironmentNotification {
  const { namespace, name } = parseEntityRef(objective.systemRef);
  const { rule } = change;
  const where = `${objective.title} (${name} in ${objective.environment})`;
  const rates = [rule.longWindow, rule.shortWindow]
    .map(window => `${formatRate(burnRates[window])} over ${window}`)
    .join(', ');
  const target = `${+(objective.target * 100).toPrecision(6)}%`;
  const firing = change.kind === 'firing';
  return {
    entityRef: objective.systemRef,
    payload: {
      title: firing
        ? `${where} burns its error budget ${rule.burnRate}x too fast`
        : `${where} no longer burns its error budget too fast`,
      description: firing
        ? `The ${target} objective's budget burns at ${rates} (${rule.severity} at ${rule.burnRate}x on both).`
        : `Burn rate is down to ${rates}, below ${rule.burnRate}x.`,
      link: `/catalog/${namespace}/system/${name}/health`,
      severity: severityOf(change),
      topic: 'healthcheck-slo',
      scope: `healthcheck-slo:${objective.objectiveRef}:${rule.severity}`,
    },
  };
}

function formatRate(rate: number | undefined): string {
  return rate === undefined ? 'nothing counted' : `${+rate.toFixed(1)}x`;
}

/** A page is urgent, a ticket normal, a recovery low. */
function severityOf(
  change: BurnRateAlertChange,
): EnvironmentNotification['payload']['severity'] {
  if (change.kind === 'resolved') {
    return 'low';
  }
  return change.rule.severity === 'page' ? 'high' : 'normal';
}
