import type { EnvironmentTransitions } from './EnvironmentTransitions';

/**
 * Systems checked together: a full pass can change thousands, and each
 * check reads the slices of all the systems it is given at once.
 */
const SYSTEMS_PER_CHECK = 500;

/**
 * What follows a reconcile pass that changed the slices of some systems:
 * their environments are checked for a transition (a failing slice
 * removed can heal one) and their rollups are requested (an environment
 * removed leaves the rollup), a chunk of systems at a time.
 * @internal
 */
export function createReconcileFollowUp(deps: {
  transitions: Pick<EnvironmentTransitions, 'checkSystems'>;
  /** The debounced recompute of a system's rollup. */
  requestRollup: (systemRef: string) => Promise<void>;
}): (systemRefs: readonly string[]) => Promise<void> {
  const { transitions, requestRollup } = deps;
  return async systemRefs => {
    for (let at = 0; at < systemRefs.length; at += SYSTEMS_PER_CHECK) {
      const chunk = systemRefs.slice(at, at + SYSTEMS_PER_CHECK);
      await transitions.checkSystems(chunk);
      await Promise.all(chunk.map(systemRef => requestRollup(systemRef)));
    }
  };
}
