import type { MaintenanceOccurrence } from './systems';

/**
 * The windows burn rates are measured over, shortest first, as the SRE
 * workbook's multi-window alerts read them.
 * @public
 */
export const BURN_RATE_WINDOW_NAMES = ['5m', '30m', '1h', '6h', '3d'] as const;

/**
 * One of {@link BURN_RATE_WINDOW_NAMES}.
 * @public
 */
export type BurnRateWindowName = (typeof BURN_RATE_WINDOW_NAMES)[number];

/**
 * A multi-window burn-rate condition that holds now: the budget burns at
 * `burnRate` or faster over both `longWindow` and `shortWindow`.
 * @public
 */
export interface ObjectiveAlert {
  severity: 'page' | 'ticket';
  burnRate: number;
  longWindow: BurnRateWindowName;
  shortWindow: BurnRateWindowName;
}

/**
 * One point of an objective's budget burn-down: the error budget left at
 * `at`, as a share of the budget of the window so far (1 untouched, 0 used
 * up, below 0 overspent).
 * @public
 */
export interface BudgetBurnDownPoint {
  /** ISO 8601. */
  at: string;
  remainingRatio: number;
}

/**
 * A service-level objective as declared, and where it stands now
 * (`GET /v1/systems/{namespace}/{name}/slos`).
 * @public
 */
export interface ObjectiveStatus {
  /** The ServiceLevelObjective entity ref. */
  ref: string;
  title: string;
  systemRef: string;
  environment: string;
  /** The HealthCheck entity ref; absent for an objective over all the system's checks. */
  checkRef?: string;
  indicator: {
    type: 'availability' | 'latency';
    percentile?: number;
    thresholdMs?: number;
  };
  window: { type: 'rolling' | 'calendarMonth'; durationMs?: number };
  budgetingMethod: 'Occurrences' | 'Timeslices';
  /** The target as a ratio, such as 0.999. */
  target: number;
  status: {
    /** ISO 8601: the window judged, up to now. */
    from: string;
    to: string;
    unit: 'seconds' | 'runs' | 'hours';
    good: number;
    bad: number;
    /** good / (good + bad); null when nothing counted yet. */
    attainment: number | null;
    errorBudget: {
      total: number;
      spent: number;
      remaining: number;
      /** remaining / total; null without a budget. */
      remainingRatio: number | null;
    };
    /** Per window ending now, the bad share over 1 - target; null where nothing counted. */
    burnRates: Record<BurnRateWindowName, number | null>;
    /** The burn-rate conditions that hold now; empty when none does. */
    alerts: ObjectiveAlert[];
    /** The budget left through the window, oldest first, ending now. */
    burnDown: BudgetBurnDownPoint[];
  };
}

/**
 * A maintenance window as `GET /v1/maintenance-windows` answers it: declared
 * as a MaintenanceWindow entity (`catalog`) or made through the API.
 * @public
 */
export interface MaintenanceWindowDetails {
  id: string;
  source: 'catalog' | 'api';
  systems?: string[];
  checks?: string[];
  environments?: string[];
  reason?: string;
  current?: MaintenanceOccurrence;
  next?: MaintenanceOccurrence;
  createdBy?: string;
  endedBy?: string;
}
