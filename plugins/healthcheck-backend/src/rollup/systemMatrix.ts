import type {
  SliceHealth,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import type { EnvironmentSlice } from '../model';

/** A system's environment x check matrix, as the API answers it. */
export type SystemMatrix = Pick<
  SystemHealthDetails,
  'environmentNames' | 'checks'
>;

/** The API's cell of one slice: its status (paused wins) and last run. */
export function cellOf(slice: EnvironmentSlice): SliceHealth {
  const state = slice.state;
  return {
    sliceId: slice.sliceId,
    checkId: slice.checkId,
    environment: slice.environment,
    status: slice.paused ? 'paused' : state?.status ?? 'unknown',
    paused: slice.paused,
    lastRunAt: state ? new Date(state.lastRunAt).toISOString() : undefined,
    lastDurationMs: state?.lastDurationMs,
    lastReason: state?.lastReason,
    since: state ? new Date(state.since).toISOString() : undefined,
  };
}

/**
 * Matrices of the slice lists they were made of: the read model hands out
 * the same list until the system changes, and is read far more often than
 * it changes. Lists are never changed once handed out.
 */
const matrices = new WeakMap<readonly EnvironmentSlice[], SystemMatrix>();

/**
 * The environment x check matrix of a system's slices; each row says which
 * components its check targets (the same on every slice of the check). The
 * same list gives the same matrix object, made once: callers copy before
 * they change it.
 */
export function matrixOf(slices: readonly EnvironmentSlice[]): SystemMatrix {
  let matrix = matrices.get(slices);
  if (!matrix) {
    matrix = makeMatrix(slices);
    matrices.set(slices, matrix);
  }
  return matrix;
}

function makeMatrix(slices: readonly EnvironmentSlice[]): SystemMatrix {
  const environmentNames = [...new Set(slices.map(s => s.environment))].sort();
  const byCheck = new Map<string, Record<string, SliceHealth>>();
  const componentsByCheck = new Map<string, string[]>();
  for (const slice of slices) {
    const cells = byCheck.get(slice.checkId) ?? {};
    cells[slice.environment] = cellOf(slice);
    byCheck.set(slice.checkId, cells);
    if (slice.components) {
      componentsByCheck.set(slice.checkId, slice.components);
    }
  }
  return {
    environmentNames,
    checks: [...byCheck.keys()].sort().map(checkId => {
      const components = componentsByCheck.get(checkId);
      return {
        checkId,
        ...(components && { components }),
        cells: byCheck.get(checkId)!,
      };
    }),
  };
}
