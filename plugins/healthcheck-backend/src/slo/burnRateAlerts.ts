import { BurnRateWindow } from './computeSlo';

/**
 * How urgent a burn is: `page` wakes someone, `ticket` can wait for the
 * working day.
 *
 * @internal
 */
export type BurnRateSeverity = 'page' | 'ticket';

/**
 * One multi-window burn-rate condition (SRE workbook, chapter 5): it holds
 * while the budget burns at `burnRate` or faster over both the long window
 * (enough to matter) and the short one (still going on now, so the alert
 * resets soon after the burn stops).
 *
 * @internal
 */
export interface BurnRateAlertRule {
  readonly severity: BurnRateSeverity;
  readonly burnRate: number;
  readonly longWindow: BurnRateWindow;
  readonly shortWindow: BurnRateWindow;
}

/**
 * The workbook's recommendation for a 30-day objective: page at 14.4x over
 * 1 h and 5 m (2% of the budget in an hour), ticket at 6x over 6 h and 30 m
 * (5% in six hours).
 *
 * @internal
 */
export const DEFAULT_BURN_RATE_ALERT_RULES: readonly BurnRateAlertRule[] = [
  { severity: 'page', burnRate: 14.4, longWindow: '1h', shortWindow: '5m' },
  { severity: 'ticket', burnRate: 6, longWindow: '6h', shortWindow: '30m' },
];

/**
 * Whether a rule's condition holds for these burn rates. A window where
 * nothing counted (all excluded, or no runs) burns nothing.
 *
 * @internal
 */
export function burnRateConditionHolds(
  rule: BurnRateAlertRule,
  burnRates: Readonly<Partial<Record<BurnRateWindow, number | undefined>>>,
): boolean {
  const long = burnRates[rule.longWindow];
  const short = burnRates[rule.shortWindow];
  return (
    long !== undefined &&
    short !== undefined &&
    long >= rule.burnRate &&
    short >= rule.burnRate
  );
}

/**
 * A change of one condition of one objective: it started to hold, or it
 * stopped.
 *
 * @internal
 */
export interface BurnRateAlertChange {
  readonly rule: BurnRateAlertRule;
  readonly kind: 'firing' | 'resolved';
}

/**
 * Which conditions of an objective hold now, and which of them changed
 * since `firingBefore`: each condition notifies once when it starts to hold
 * and once when it stops, never while it goes on.
 *
 * @internal
 */
export function decideBurnRateAlerts(input: {
  burnRates: Readonly<Partial<Record<BurnRateWindow, number | undefined>>>;
  rules: readonly BurnRateAlertRule[];
  /** The severities whose conditions held at the previous decision. */
  firingBefore: ReadonlySet<BurnRateSeverity>;
}): { firing: Set<BurnRateSeverity>; changes: BurnRateAlertChange[] } {
  const firing = new Set<BurnRateSeverity>();
  const changes: BurnRateAlertChange[] = [];
  for (const rule of input.rules) {
    const holds = burnRateConditionHolds(rule, input.burnRates);
    const held = input.firingBefore.has(rule.severity);
    if (holds) {
      firing.add(rule.severity);
    }
    if (holds && !held) {
      changes.push({ rule, kind: 'firing' });
    } else if (!holds && held) {
      changes.push({ rule, kind: 'resolved' });
    }
  }
  return { firing, changes };
}
