import {
  HEALTH_STATUSES,
  HealthStatus,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import { RiIndeterminateCircleLine } from '@remixicon/react';
import { presentStatus, StatusPresentation } from '../../status';

/**
 * How a system's health looks: a status, or "No checks" for a system that
 * has none. `paletteKey` is absent for "No checks", which is neutral.
 */
export type HealthPresentation = Omit<StatusPresentation, 'paletteKey'> & {
  paletteKey?: StatusPresentation['paletteKey'];
};

export const NO_CHECKS: HealthPresentation = {
  label: 'No checks',
  Icon: RiIndeterminateCircleLine,
};

/** A system the backend does not know, or one that is unknown with no slices. */
export function hasNoChecks(
  rollup: Pick<SystemRollup, 'status' | 'total'> | undefined,
): boolean {
  return !rollup || (rollup.status === 'unknown' && rollup.total === 0);
}

/** The presentation of a system's rollup, with "No checks" when it has none. */
export function presentHealth(
  rollup: Pick<SystemRollup, 'status' | 'total'> | undefined,
): HealthPresentation {
  if (!rollup || hasNoChecks(rollup)) {
    return NO_CHECKS;
  }
  return presentStatus(rollup.status);
}

/** Every status, worst first: the order of legends. */
export const STATUSES_WORST_FIRST: readonly HealthStatus[] = [
  ...HEALTH_STATUSES,
].reverse();
