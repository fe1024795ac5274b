import {
  encodeSliceId,
  tryDecodeSliceId,
} from '@vigil/plugin-healthcheck-common';

/**
 * What the planner compares of a desired slice.
 * @internal
 */
export interface PlannableSlice {
  readonly id: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly configHash: string;
  /** Canonical component refs, sorted; absent or empty when none. */
  readonly components?: readonly string[];
}

/**
 * What the scheduler holds of a slice. An entry without `timeoutMs` or
 * `configHash` (written before they existed) counts as changed.
 * @internal
 */
export interface HeldSlice {
  readonly id: string;
  readonly intervalMs: number;
  readonly timeoutMs?: number;
  readonly configHash?: string;
  readonly components?: readonly string[];
}

/**
 * Which of a slice's fields an edit changed. `components` changes nothing a
 * run does, but must be written for the matrix and notifications to see it.
 * @internal
 */
export type SliceFieldChange = 'interval' | 'timeout' | 'config' | 'components';

/**
 * A slice that stays, with new fields.
 * @internal
 */
export interface SliceReschedule<
  TDesired extends PlannableSlice,
  THeld extends HeldSlice,
> {
  slice: TDesired;
  previous: THeld;
  changes: SliceFieldChange[];
  /**
   * The interval is unchanged, so the slice keeps its place on its grid (the
   * grid is a function of the id and the interval): no tick is lost or
   * doubled. Only an interval change moves it.
   */
  keepPhase: boolean;
}

/**
 * How to turn what the scheduler holds into what should run.
 * @internal
 */
export interface ReconcilePlan<
  TDesired extends PlannableSlice,
  THeld extends HeldSlice,
> {
  /** Desired, not held: start them. In the order of `desired`. */
  toSchedule: TDesired[];
  /** Held, not desired (orphans, ids of an older format): stop them. In the order of `current`. */
  toCancel: THeld[];
  /** Held and desired, with a different interval, timeout, config or components. */
  toReschedule: Array<SliceReschedule<TDesired, THeld>>;
}

/**
 * Limits a plan to the slices of one system.
 * @internal
 */
export interface ReconcileScope {
  /** The system's entity ref; compared in canonical (lower-case) form. */
  systemRef: string;
}

/**
 * The pure diff of the convergence reconciler: what to schedule, cancel and
 * reschedule so that the scheduler holds exactly `desired`. Applying the plan
 * to `current` (drop `toCancel`, add `toSchedule`, replace `toReschedule`)
 * yields `desired`, and equal inputs give an empty plan.
 *
 * With a `scope`, only slices whose id names that system count, on both
 * sides: desired slices of other systems are ignored and held slices of other
 * systems are left alone, never cancelled, and so are held ids that do not
 * decode (a full pass cancels those). That is the system-scoped pass after an
 * edit; the orphan sweep belongs to the full pass.
 *
 * @throws Error when an id appears twice on one side, which would make the
 *   plan ambiguous.
 * @internal
 */
export function planReconcile<
  TDesired extends PlannableSlice,
  THeld extends HeldSlice,
>(options: {
  desired: readonly TDesired[];
  current: readonly THeld[];
  scope?: ReconcileScope;
}): ReconcilePlan<TDesired, THeld> {
  const inScope = scopeFilter(options.scope);
  const held = new Map<string, THeld>();
  for (const slice of options.current) {
    if (!inScope(slice.id)) {
      continue;
    }
    if (held.has(slice.id)) {
      throw new Error(`The scheduler holds slice ${slice.id} twice`);
    }
    held.set(slice.id, slice);
  }

  const plan: ReconcilePlan<TDesired, THeld> = {
    toSchedule: [],
    toCancel: [],
    toReschedule: [],
  };
  const desiredIds = new Set<string>();
  for (const slice of options.desired) {
    if (!inScope(slice.id)) {
      continue;
    }
    if (desiredIds.has(slice.id)) {
      throw new Error(`Slice ${slice.id} is desired twice`);
    }
    desiredIds.add(slice.id);
    const previous = held.get(slice.id);
    if (!previous) {
      plan.toSchedule.push(slice);
      continue;
    }
    const changes: SliceFieldChange[] = [];
    if (previous.intervalMs !== slice.intervalMs) changes.push('interval');
    if (previous.timeoutMs !== slice.timeoutMs) changes.push('timeout');
    if (previous.configHash !== slice.configHash) changes.push('config');
    if (!sameRefs(previous.components, slice.components)) {
      changes.push('components');
    }
    if (changes.length > 0) {
      plan.toReschedule.push({
        slice,
        previous,
        changes,
        keepPhase: !changes.includes('interval'),
      });
    }
  }
  for (const [id, slice] of held) {
    if (!desiredIds.has(id)) {
      plan.toCancel.push(slice);
    }
  }
  return plan;
}

/**
 * Whether a plan changes nothing.
 * @internal
 */
export function isEmptyPlan(
  plan: ReconcilePlan<PlannableSlice, HeldSlice>,
): boolean {
  return (
    plan.toSchedule.length === 0 &&
    plan.toCancel.length === 0 &&
    plan.toReschedule.length === 0
  );
}

/** Equal lists of sorted refs; absent counts as empty. */
function sameRefs(
  a: readonly string[] = [],
  b: readonly string[] = [],
): boolean {
  return a.length === b.length && a.every((ref, index) => ref === b[index]);
}

function scopeFilter(scope: ReconcileScope | undefined) {
  if (!scope) {
    return () => true;
  }
  const systemRef = scope.systemRef.toLowerCase();
  // Parts of an id hold no ":", so ":<system>:" can only match the check or
  // the system part; the cheap test skips the decoding of most ids.
  const encoded = encodeSliceId({ checkId: '', systemRef, environment: '' });
  const marker = encoded.slice(encoded.indexOf(':') + 1);
  return (id: string) =>
    id.includes(marker) && tryDecodeSliceId(id)?.systemRef === systemRef;
}
