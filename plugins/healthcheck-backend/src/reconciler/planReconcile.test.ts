import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import fc from 'fast-check';
import {
  HeldSlice,
  isEmptyPlan,
  PlannableSlice,
  planReconcile,
  ReconcilePlan,
} from './planReconcile';

interface Slice extends PlannableSlice {
  systemRef: string;
}

function slice(
  checkId: string,
  systemRef: string,
  environment: string,
  fields: Partial<PlannableSlice> = {},
): Slice {
  return {
    id: encodeSliceId({ checkId, systemRef, environment }),
    systemRef,
    intervalMs: 10_000,
    timeoutMs: 2_000,
    configHash: 'h1',
    ...fields,
  };
}

/** What the scheduler holds after carrying out a plan, independently of the planner. */
function applyPlan(
  current: readonly HeldSlice[],
  plan: ReconcilePlan<Slice, HeldSlice>,
): Map<string, HeldSlice> {
  const held = new Map(current.map(s => [s.id, s]));
  for (const cancelled of plan.toCancel) {
    expect(held.has(cancelled.id)).toBe(true);
    held.delete(cancelled.id);
  }
  for (const scheduled of plan.toSchedule) {
    expect(held.has(scheduled.id)).toBe(false);
    held.set(scheduled.id, scheduled);
  }
  for (const { slice: next, previous } of plan.toReschedule) {
    expect(held.get(next.id)).toBe(previous);
    held.set(next.id, next);
  }
  return held;
}

const fieldsOf = (s: HeldSlice) => ({
  intervalMs: s.intervalMs,
  timeoutMs: s.timeoutMs,
  configHash: s.configHash,
});

function asFields(slices: Iterable<HeldSlice>) {
  return new Map([...slices].map(s => [s.id, fieldsOf(s)]));
}

describe('planReconcile', () => {
  const a = slice('web', 'system:default/shop', 'production');
  const b = slice('web', 'system:default/shop', 'staging');
  const c = slice('db', 'system:default/billing', 'default');

  it('schedules what is desired and not held', () => {
    const plan = planReconcile({ desired: [a, b], current: [a] });
    expect(plan).toEqual({ toSchedule: [b], toCancel: [], toReschedule: [] });
  });

  it('cancels orphans, including ids of an older format', () => {
    const old = { id: 'healthcheck:web:system:default/shop', intervalMs: 10 };
    const plan = planReconcile({ desired: [a], current: [a, c, old] });
    expect(plan).toEqual({
      toSchedule: [],
      toCancel: [c, old],
      toReschedule: [],
    });
  });

  it('reschedules an interval change, moving the phase', () => {
    const faster = { ...a, intervalMs: 5_000 };
    expect(planReconcile({ desired: [faster], current: [a] })).toEqual({
      toSchedule: [],
      toCancel: [],
      toReschedule: [
        { slice: faster, previous: a, changes: ['interval'], keepPhase: false },
      ],
    });
  });

  it('reschedules a timeout or config change, keeping the phase', () => {
    const edited = { ...a, timeoutMs: 3_000, configHash: 'h2' };
    expect(planReconcile({ desired: [edited], current: [a] })).toEqual({
      toSchedule: [],
      toCancel: [],
      toReschedule: [
        {
          slice: edited,
          previous: a,
          changes: ['timeout', 'config'],
          keepPhase: true,
        },
      ],
    });
  });

  it('rewrites a slice whose check now targets other components, keeping the phase', () => {
    const targeting = { ...a, components: ['component:default/web'] };
    expect(planReconcile({ desired: [targeting], current: [a] })).toEqual({
      toSchedule: [],
      toCancel: [],
      toReschedule: [
        {
          slice: targeting,
          previous: a,
          changes: ['components'],
          keepPhase: true,
        },
      ],
    });
    expect(
      isEmptyPlan(
        planReconcile({ desired: [targeting], current: [targeting] }),
      ),
    ).toBe(true);
    // No components and an empty list are the same.
    expect(
      isEmptyPlan(
        planReconcile({ desired: [{ ...a, components: [] }], current: [a] }),
      ),
    ).toBe(true);
  });

  it('reschedules a held slice that predates timeouts and hashes', () => {
    const legacy = { id: a.id, intervalMs: a.intervalMs };
    expect(
      planReconcile({ desired: [a], current: [legacy] }).toReschedule,
    ).toEqual([
      {
        slice: a,
        previous: legacy,
        changes: ['timeout', 'config'],
        keepPhase: true,
      },
    ]);
  });

  it('plans nothing when nothing changed', () => {
    const plan = planReconcile({
      desired: [a, b, c],
      current: [{ ...c }, { ...b }, { ...a }],
    });
    expect(isEmptyPlan(plan)).toBe(true);
  });

  it('refuses an id twice on either side', () => {
    expect(() => planReconcile({ desired: [a, a], current: [] })).toThrow(
      `Slice ${a.id} is desired twice`,
    );
    expect(() => planReconcile({ desired: [], current: [b, b] })).toThrow(
      `The scheduler holds slice ${b.id} twice`,
    );
  });

  describe('scoped to one system', () => {
    it('touches only that system, never cancelling the slices of others', () => {
      const shopEdited = { ...b, configHash: 'h2' };
      const plan = planReconcile({
        desired: [shopEdited],
        current: [a, b, c, { id: 'not-a-slice-id', intervalMs: 1 }],
        scope: { systemRef: 'system:default/shop' },
      });
      expect(plan).toEqual({
        toSchedule: [],
        toCancel: [a],
        toReschedule: [
          {
            slice: shopEdited,
            previous: b,
            changes: ['config'],
            keepPhase: true,
          },
        ],
      });
    });

    it('ignores desired slices of other systems', () => {
      const plan = planReconcile({
        desired: [a, c],
        current: [],
        scope: { systemRef: 'System:Default/Shop' },
      });
      expect(plan.toSchedule).toEqual([a]);
    });

    it('does not mistake a check id that looks like the system for the system', () => {
      const lookalike = slice(
        'system:default/shop',
        'system:default/other',
        'x',
      );
      const plan = planReconcile({
        desired: [],
        current: [lookalike],
        scope: { systemRef: 'system:default/shop' },
      });
      expect(isEmptyPlan(plan)).toBe(true);
    });
  });
});

describe('planReconcile, over random inputs', () => {
  const SYSTEMS = [
    'system:default/shop',
    'system:default/billing',
    'system:team-a/search',
    'system:default/a:b',
  ];
  const CHECKS = ['web', 'api', 'healthcheck:default/db'];
  const ENVIRONMENTS = ['production', 'staging', 'default'];
  const KEYS = SYSTEMS.flatMap(systemRef =>
    CHECKS.flatMap(checkId =>
      ENVIRONMENTS.map(environment => ({ checkId, systemRef, environment })),
    ),
  );
  const RUNS = 200;

  /** True `percent` of the time; shrinks to false. */
  const chance = (percent: number) =>
    fc.integer({ min: 0, max: 99 }).map(roll => roll >= 100 - percent);
  const configHashArb = fc.constantFrom('h1', 'h2', 'h3');

  /** About half of every key, in an order that carries no meaning. */
  const slicesArb: fc.Arbitrary<Slice[]> = fc
    .tuple(
      ...KEYS.map(() =>
        fc.option(
          fc.record({
            intervalMs: fc.constantFrom(5_000, 10_000, 60_000),
            timeoutMs: fc.constantFrom(1_000, 2_000),
            configHash: configHashArb,
            order: fc.nat(),
          }),
          { nil: undefined, freq: 2 },
        ),
      ),
    )
    .map(picks =>
      KEYS.flatMap((key, i) => {
        const pick = picks[i];
        if (!pick) return [];
        const { order, ...fields } = pick;
        return [
          {
            order,
            slice: slice(key.checkId, key.systemRef, key.environment, fields),
          },
        ];
      })
        .sort((a, b) => a.order - b.order)
        .map(entry => entry.slice),
    );

  /** Mostly the same set with a few edits, as between two passes. */
  function editedArb(slices: Slice[]): fc.Arbitrary<Slice[]> {
    const edit = fc.record({
      dropped: chance(10),
      changed: chance(20),
      doubled: fc.boolean(),
      configHash: configHashArb,
    });
    return fc
      .record({
        edits: fc.array(edit, {
          minLength: slices.length,
          maxLength: slices.length,
        }),
        added: slicesArb,
        addedKept: fc.array(chance(10), {
          minLength: KEYS.length,
          maxLength: KEYS.length,
        }),
      })
      .map(({ edits, added, addedKept }) =>
        slices
          .flatMap((s, i) => {
            const e = edits[i];
            if (e.dropped) return [];
            return e.changed
              ? [
                  {
                    ...s,
                    intervalMs: e.doubled ? s.intervalMs * 2 : s.intervalMs,
                    configHash: e.configHash,
                  },
                ]
              : [s];
          })
          .concat(added.filter((_, i) => addedKept[i]))
          .filter((s, i, all) => all.findIndex(o => o.id === s.id) === i),
      );
  }

  const currentAndEditedArb = slicesArb.chain(current =>
    fc.record({ current: fc.constant(current), desired: editedArb(current) }),
  );

  it('yields exactly the desired slices when applied to the current ones', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          currentAndEditedArb,
          fc.record({ current: slicesArb, desired: slicesArb }),
        ),
        ({ current, desired }) => {
          const plan = planReconcile({ desired, current });
          expect(asFields(applyPlan(current, plan).values())).toEqual(
            asFields(desired),
          );
          for (const {
            slice: next,
            previous,
            keepPhase,
          } of plan.toReschedule) {
            expect(keepPhase).toBe(next.intervalMs === previous.intervalMs);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('plans nothing for an unchanged set, in any order', () => {
    fc.assert(
      fc.property(slicesArb, current => {
        const desired = [...current].reverse().map(s => ({ ...s }));
        expect(isEmptyPlan(planReconcile({ desired, current }))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('changes only the scoped system, and brings it to the desired state', () => {
    fc.assert(
      fc.property(
        currentAndEditedArb,
        fc.constantFrom(...SYSTEMS),
        ({ current, desired }, systemRef) => {
          const plan = planReconcile({
            desired,
            current,
            scope: { systemRef },
          });
          const after = applyPlan(current, plan);
          const expected = [
            ...desired.filter(s => s.systemRef === systemRef),
            ...current.filter(s => s.systemRef !== systemRef),
          ];
          expect(asFields(after.values())).toEqual(asFields(expected));
        },
      ),
      { numRuns: RUNS },
    );
  });
});
