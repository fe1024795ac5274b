import { mockServices } from '@backstage/backend-test-utils';
import { FakeClock } from './__testUtils__/FakeClock';
import type { SchedulerMetrics, SchedulerSizes } from './metrics';
import { SliceScheduler } from './SliceScheduler';
import { staggerOffsetMs } from './tickGrid';
import type {
  DueTick,
  SchedulerClock,
  SkipReason,
  SliceSchedulerOptions,
  TickExecutor,
  TickRuns,
} from './types';
import { systemClock } from './clock';

/** 2026-01-01T00:00:00Z: a whole minute, so grid arithmetic reads easily. */
const T0 = 1_767_225_600_000;

interface TestSlice {
  id: string;
  intervalMs: number;
  target?: string;
}

interface Delivery {
  at: number;
  ticks: Array<DueTick<TestSlice>>;
}

class RecordingMetrics implements SchedulerMetrics {
  lateness: number[] = [];
  fired = 0;
  skipped: Record<SkipReason, number> = { 'in-flight': 0, missed: 0 };
  stalePops = 0;
  readers: Array<() => SchedulerSizes> = [];

  recordLateness(latenessMs: number) {
    this.lateness.push(latenessMs);
  }
  addFiredTicks(count: number) {
    this.fired += count;
  }
  addSkippedTicks(count: number, reason: SkipReason) {
    this.skipped[reason] += count;
  }
  addStalePops(count: number) {
    this.stalePops += count;
  }
  observeSizes(read: () => SchedulerSizes) {
    this.readers.push(read);
    return () => {
      this.readers = this.readers.filter(r => r !== read);
    };
  }
}

function setup(
  options: {
    scheduler?: SliceSchedulerOptions<TestSlice>;
    clock?: { fireEarlyMs?: number; startMs?: number };
    executor?: (
      batch: ReadonlyArray<DueTick<TestSlice>>,
    ) => ReturnType<TickExecutor<TestSlice>>;
  } = {},
) {
  const clock = new FakeClock(options.clock?.startMs ?? T0, options.clock);
  const deliveries: Delivery[] = [];
  const metrics = new RecordingMetrics();
  const logger = mockServices.logger.mock();
  const scheduler = SliceScheduler.create<TestSlice>({
    logger,
    metrics,
    clock,
    options: options.scheduler,
    executor: batch => {
      deliveries.push({ at: clock.now(), ticks: [...batch] });
      return options.executor?.(batch);
    },
  });
  const ticks = () => deliveries.flatMap(d => d.ticks);
  const ticksOf = (id: string) =>
    ticks()
      .filter(t => t.sliceId === id)
      .map(t => t.scheduledAt);
  return { clock, scheduler, deliveries, metrics, logger, ticks, ticksOf };
}

/** Each tick's run, keyed by the tick, as the runner hands them back. */
function runsOf(
  batch: ReadonlyArray<DueTick<TestSlice>>,
  run: (tick: DueTick<TestSlice>) => Promise<void>,
): TickRuns<TestSlice> {
  return new Map(batch.map(tick => [tick, run(tick)]));
}

/** An id whose grid offset in `intervalMs` is exactly `offsetMs`. */
function idWithOffset(offsetMs: number, intervalMs: number, prefix = 's') {
  for (let n = 0; n < 10_000_000; n++) {
    const id = `${prefix}-${n}`;
    if (staggerOffsetMs(id, intervalMs) === offsetMs) {
      return id;
    }
  }
  throw new Error('no such id');
}

function slices(count: number, intervalMs: number): TestSlice[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `healthcheck:check-${i}:system%3Adefault%2Fpayments:production`,
    intervalMs,
  }));
}

describe('SliceScheduler', () => {
  describe('one heap, one timer', () => {
    it('keeps at most one timer pending for 1,000 slices', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(1000, 1_000) });
      for (let ms = 0; ms < 3_000; ms += 7) {
        await clock.advance(7);
        expect(clock.pendingTimers).toBeLessThanOrEqual(1);
      }
      expect(ticks().length).toBeGreaterThanOrEqual(2_000);
    });

    it('sets no timer while there is nothing to schedule', async () => {
      const { clock, scheduler } = setup();
      scheduler.start();
      expect(clock.pendingTimers).toBe(0);
      await scheduler.submit({ type: 'upsert', slices: slices(3, 1_000) });
      await clock.advance(0);
      expect(clock.pendingTimers).toBe(1);
      await scheduler.submit({ type: 'replace', slices: [] });
      await clock.advance(2_000); // the three stale entries surface and die
      expect(scheduler.stats().heapSize).toBe(0);
      expect(clock.pendingTimers).toBe(0);
    });

    it('never runs a tick before its due time, even when timers fire early', async () => {
      const { clock, scheduler, deliveries } = setup({
        clock: { fireEarlyMs: 1, startMs: T0 + 0.37 },
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(200, 1_000) });
      await clock.advance(5_000);
      expect(deliveries.length).toBeGreaterThan(100);
      for (const { at, ticks } of deliveries) {
        for (const tick of ticks) {
          expect(tick.scheduledAt).toBeLessThanOrEqual(at);
        }
      }
      // Early wake-ups found nothing due and re-armed for the rest.
      expect(clock.requestedDelays.every(Number.isInteger)).toBe(true);
    });
  });

  describe('cancel by generation', () => {
    const intervalMs = 10_000;
    const id = idWithOffset(3_000, intervalMs);

    it('never fires a cancelled slice; its entry dies when it surfaces', async () => {
      const { clock, scheduler, ticksOf, metrics } = setup();
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [
          { id, intervalMs },
          { id: 'other', intervalMs },
        ],
      });
      await clock.advance(intervalMs); // first probe of both
      expect(ticksOf(id)).toHaveLength(1);
      await scheduler.submit({ type: 'cancel', sliceIds: [id] });
      await clock.advance(3 * intervalMs);
      expect(ticksOf(id)).toHaveLength(1);
      expect(ticksOf('other').length).toBeGreaterThanOrEqual(3);
      expect(metrics.stalePops).toBe(1);
      expect(scheduler.stats()).toMatchObject({
        liveSlices: 1,
        heapSize: 1,
        staleEntries: 0,
      });
    });

    it('tells which slices a change removed, cancelled or left out of a replace, once each', async () => {
      const forgotten: string[][] = [];
      const { clock, scheduler } = setup({
        scheduler: { onCancelled: ids => forgotten.push([...ids]) },
      });
      scheduler.start();
      const [a, b, c] = slices(3, intervalMs);
      await scheduler.submit({ type: 'upsert', slices: [a, b, c] });
      await scheduler.submit({ type: 'cancel', sliceIds: [a.id, 'unknown'] });
      await scheduler.submit({ type: 'replace', slices: [c] });
      await scheduler.submit({ type: 'cancel', sliceIds: [a.id] });
      await clock.advance(0);

      expect(forgotten).toEqual([[a.id], [b.id]]);
      expect(scheduler.stats().liveSlices).toBe(1);
    });

    it('keeps the phase when a config edit leaves the interval alone', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [{ id, intervalMs, target: 'https://a' }],
      });
      await clock.advanceTo(T0 + 3_000); // grid point inside the first window
      await clock.advanceTo(T0 + 7_000);
      await scheduler.submit({
        type: 'upsert',
        slices: [{ id, intervalMs, target: 'https://b' }],
      });
      await clock.advanceTo(T0 + 33_000);
      expect(ticks().map(t => [t.scheduledAt - T0, t.slice.target])).toEqual([
        [3_000, 'https://a'],
        [13_000, 'https://b'],
        [23_000, 'https://b'],
        [33_000, 'https://b'],
      ]);
      const generations = new Set(ticks().map(t => t.generation));
      expect(generations.size).toBe(2);
      expect(scheduler.isCurrent(id, ticks()[0].generation)).toBe(false);
      expect(scheduler.isCurrent(id, ticks()[3].generation)).toBe(true);
    });

    it('moves to the new grid when the interval changes, never closer than half the new interval', async () => {
      const { clock, scheduler, ticksOf } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [{ id, intervalMs }] });
      await clock.advanceTo(T0 + 14_000); // ticks at 3 s and 13 s
      await scheduler.submit({
        type: 'upsert',
        slices: [{ id, intervalMs: 4_000 }],
      });
      await clock.advanceTo(T0 + 40_000);
      const offset = staggerOffsetMs(id, 4_000);
      const after = ticksOf(id).filter(at => at > T0 + 13_000);
      expect(after[0] - (T0 + 13_000)).toBeGreaterThanOrEqual(2_000);
      for (const at of after) {
        expect((at - offset) % 4_000).toBe(0);
      }
      expect(after.length).toBeGreaterThanOrEqual(6);
    });

    it('does not write a generation when an upsert changes nothing', async () => {
      const { clock, scheduler } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [{ id, intervalMs }] });
      await clock.advance(0);
      await scheduler.submit({ type: 'upsert', slices: [{ id, intervalMs }] });
      await clock.advance(0);
      expect(scheduler.stats()).toMatchObject({ heapSize: 1, staleEntries: 0 });
    });

    it('compacts the heap once stale entries outnumber live ones', async () => {
      const { clock, scheduler } = setup();
      scheduler.start();
      const fleet = slices(100, 60_000);
      await scheduler.submit({ type: 'upsert', slices: fleet });
      await clock.advance(0);
      for (let edit = 1; edit <= 3; edit++) {
        await scheduler.submit({
          type: 'upsert',
          slices: fleet.map(s => ({ ...s, target: `v${edit}` })),
        });
        await clock.advance(0);
        // Never more than one stale entry per live one survives an edit.
        expect(scheduler.stats().heapSize).toBeLessThanOrEqual(200);
      }
      expect(scheduler.stats().compactions).toBeGreaterThanOrEqual(1);
      await scheduler.submit({ type: 'replace', slices: fleet.slice(0, 10) });
      await clock.advance(0);
      expect(scheduler.stats()).toMatchObject({ liveSlices: 10 });
      expect(scheduler.stats().heapSize).toBeLessThanOrEqual(20);
    });

    it('a replace cancels the slices it does not name', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(5, 1_000) });
      await scheduler.submit({ type: 'replace', slices: slices(2, 1_000) });
      await clock.advance(3_000);
      expect(new Set(ticks().map(t => t.sliceId)).size).toBe(2);
    });

    it('ignores invalid slices with a warning and keeps the rest', async () => {
      const { clock, scheduler, logger } = setup();
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [
          { id: 'ok', intervalMs: 1_000 },
          { id: 'fraction', intervalMs: 1.5 },
          { id: 'zero', intervalMs: 0 },
          { id: '', intervalMs: 1_000 },
        ],
      });
      await clock.advance(0);
      expect(scheduler.stats().liveSlices).toBe(1);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('Ignored 3 slices'),
      );
    });
  });

  describe('hashed stagger on an absolute grid', () => {
    it('fires every tick after the first at k * interval + hash(id) mod interval', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      const fleet = [
        ...slices(50, 1_000),
        ...slices(50, 7_000).map(s => ({ ...s, id: `${s.id}-7s` })),
      ];
      await scheduler.submit({ type: 'upsert', slices: fleet });
      await clock.advance(30_000);
      const bySlice = new Map<string, DueTick<TestSlice>[]>();
      for (const tick of ticks()) {
        bySlice.set(tick.sliceId, [...(bySlice.get(tick.sliceId) ?? []), tick]);
      }
      expect(bySlice.size).toBe(100);
      for (const [id, sliceTicks] of bySlice) {
        const { intervalMs } = sliceTicks[0].slice;
        for (const tick of sliceTicks.slice(1)) {
          expect(tick.scheduledAt % intervalMs).toBe(
            staggerOffsetMs(id, intervalMs),
          );
        }
      }
    });

    it('lands a slice in the same slots after a restart at another time', async () => {
      const slice = {
        id: 'healthcheck:a:system%3Adefault%2Fb:prod',
        intervalMs: 60_000,
      };
      const before = setup();
      before.scheduler.start();
      await before.scheduler.submit({ type: 'upsert', slices: [slice] });
      await before.clock.advance(400_000);
      const after = setup({ clock: { startMs: T0 + 123_456 } });
      after.scheduler.start();
      await after.scheduler.submit({ type: 'upsert', slices: [slice] });
      await after.clock.advance(400_000 - 123_456);
      const gridBefore = before.ticksOf(slice.id).slice(1);
      const gridAfter = after.ticksOf(slice.id).slice(1);
      expect(gridAfter.length).toBeGreaterThanOrEqual(3);
      for (const at of gridAfter) {
        expect(gridBefore).toContain(at);
      }
    });
  });

  describe('first probe soon', () => {
    it('fires a new slice within min(5 s, interval / 2), spread over that window', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await clock.advance(1_234);
      const importedAt = clock.now();
      await scheduler.submit({
        type: 'upsert',
        slices: slices(1000, 3_600_000),
      });
      await clock.advance(5_000);
      const firsts = ticks().map(t => t.scheduledAt - importedAt);
      expect(firsts).toHaveLength(1000);
      expect(Math.max(...firsts)).toBeLessThanOrEqual(5_000);
      expect(Math.min(...firsts)).toBeGreaterThanOrEqual(0);
      // Spread: no single millisecond takes more than a handful.
      const perMs = new Map<number, number>();
      for (const at of firsts) perMs.set(at, (perMs.get(at) ?? 0) + 1);
      expect(Math.max(...perMs.values())).toBeLessThanOrEqual(5);
    });

    it('caps the window at half the interval for fast slices', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(200, 2_000) });
      await clock.advance(1_000);
      expect(ticks()).toHaveLength(200);
    });

    it('probes first on a finer grid anchored on the slice grid, so every instance picks the same instant', async () => {
      const intervalMs = 10_000;
      // The grid point comes 5,001 ms after the import, just outside the 5 s
      // window; the finer grid (steps of 5 s) has a point 1 ms after it.
      const id = idWithOffset(5_001, intervalMs);
      const { clock, scheduler, ticksOf } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [{ id, intervalMs }] });
      await clock.advance(30_000);
      expect(ticksOf(id).map(at => at - T0)).toEqual([
        1, 5_001, 15_001, 25_001,
      ]);

      // Another instance that loads the slice 3 s later probes first on
      // the grid point itself, which the first instance also runs: one
      // claim key, one probe.
      const late = setup();
      late.scheduler.start();
      await late.clock.advance(3_000);
      await late.scheduler.submit({
        type: 'upsert',
        slices: [{ id, intervalMs }],
      });
      await late.clock.advance(10_000);
      expect(late.ticksOf(id).map(at => at - T0)).toEqual([5_001]);
    });

    it('fires on the grid at once when a grid point falls inside the window', async () => {
      const intervalMs = 10_000;
      const id = idWithOffset(5_000, intervalMs);
      const { clock, scheduler, ticksOf } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [{ id, intervalMs }] });
      await clock.advance(30_000);
      expect(ticksOf(id).map(at => at - T0)).toEqual([5_000, 15_000, 25_000]);
    });
  });

  describe('skip the backlog', () => {
    it('after a 5 s stall fires each slice once, counts the missed ticks, then runs on its grid', async () => {
      const { clock, scheduler, ticks, metrics } = setup();
      scheduler.start();
      const fleet = slices(1000, 1_000);
      await scheduler.submit({ type: 'upsert', slices: fleet });
      await clock.advance(3_000);
      const beforeStall = ticks().length;

      clock.jump(5_000); // the event loop is blocked: no timer runs
      const resumedAt = clock.now();
      await clock.advance(0);
      const recovery = ticks().slice(beforeStall);
      expect(recovery).toHaveLength(1000);
      expect(new Set(recovery.map(t => t.sliceId)).size).toBe(1000);
      // Each slice missed the 4 or 5 grid points that passed during the stall.
      expect(metrics.skipped.missed).toBeGreaterThanOrEqual(4 * 1000);
      expect(metrics.skipped.missed).toBeLessThanOrEqual(5 * 1000);

      const recoveredAt = new Map(recovery.map(t => [t.sliceId, clock.now()]));
      await clock.advance(5_000);
      const afterwards = ticks().slice(beforeStall + 1000);
      expect(afterwards.length).toBeGreaterThanOrEqual(4 * 1000);
      for (const tick of afterwards) {
        // Back on the original grid, never within half an interval of the
        // catch-up run.
        expect(tick.scheduledAt).toBeGreaterThanOrEqual(
          recoveredAt.get(tick.sliceId)! + 500,
        );
        expect(tick.scheduledAt % 1_000).toBe(
          staggerOffsetMs(tick.sliceId, 1_000),
        );
      }
      expect(resumedAt).toBe(T0 + 8_000);
    });

    it('rebuilds the schedule from now when the wall clock steps back', async () => {
      const { clock, scheduler, ticks, logger } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(10, 1_000) });
      await clock.advance(2_000);
      const before = ticks().length;
      clock.stepWallClock(-60_000); // timers still fire after real time passes
      await clock.advance(3_000);
      expect(ticks().length - before).toBeGreaterThanOrEqual(20);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('stepped back'),
      );
    });
  });

  describe('in-flight skip', () => {
    it('skips and counts the ticks of a slice whose previous probe still runs', async () => {
      const intervalMs = 1_000;
      const slow = idWithOffset(100, intervalMs, 'slow');
      const fast = idWithOffset(100, intervalMs, 'fast');
      const releases: Array<() => void> = [];
      const { clock, scheduler, ticksOf, metrics } = setup({
        executor: batch =>
          runsOf(batch, tick =>
            tick.sliceId === slow
              ? new Promise<void>(resolve => releases.push(resolve))
              : Promise.resolve(),
          ),
      });
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [
          { id: slow, intervalMs },
          { id: fast, intervalMs },
        ],
      });
      await clock.advanceTo(T0 + 3_500);
      expect(ticksOf(slow)).toEqual([T0 + 100]);
      expect(ticksOf(fast)).toEqual([
        T0 + 100,
        T0 + 1_100,
        T0 + 2_100,
        T0 + 3_100,
      ]);
      expect(metrics.skipped['in-flight']).toBe(3);
      expect(scheduler.stats().inFlight).toBe(1);

      releases[0]();
      await clock.advanceTo(T0 + 4_500);
      expect(ticksOf(slow)).toEqual([T0 + 100, T0 + 4_100]);
    });

    it('holds every slice of a batch when the executor returns one promise for it', async () => {
      let release = () => {};
      const { clock, scheduler, deliveries, metrics } = setup({
        executor: () => new Promise<void>(resolve => (release = resolve)),
      });
      scheduler.start();
      const intervalMs = 1_000;
      const batchOfThree = ['b1', 'b2', 'b3'].map(prefix => ({
        id: idWithOffset(100, intervalMs, prefix),
        intervalMs,
      }));
      await scheduler.submit({ type: 'upsert', slices: batchOfThree });
      await clock.advanceTo(T0 + 2_500);
      expect(deliveries.map(d => d.ticks.length)).toEqual([3]);
      expect(metrics.skipped['in-flight']).toBe(6);
      release();
      await clock.advanceTo(T0 + 3_500);
      expect(deliveries.map(d => d.ticks.length)).toEqual([3, 3]);
    });

    it('pairs each run with its own tick, whatever ticks the executor leaves out', async () => {
      const intervalMs = 1_000;
      const [first, held, last] = ['p1', 'p2', 'p3'].map(prefix => ({
        id: idWithOffset(100, intervalMs, prefix),
        intervalMs,
      }));
      let release = () => {};
      const { clock, scheduler, ticksOf } = setup({
        // The first tick gets no run (as a stale tick does), so an executor
        // paired by position would hold the wrong slice.
        executor: batch =>
          new Map(
            batch
              .filter(tick => tick.sliceId !== first.id)
              .map(tick => [
                tick,
                tick.sliceId === held.id
                  ? new Promise<void>(resolve => (release = resolve))
                  : Promise.resolve(),
              ]),
          ),
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [first, held, last] });
      await clock.advanceTo(T0 + 2_500);

      expect(ticksOf(first.id)).toEqual([T0 + 100, T0 + 1_100, T0 + 2_100]);
      expect(ticksOf(held.id)).toEqual([T0 + 100]);
      expect(ticksOf(last.id)).toEqual([T0 + 100, T0 + 1_100, T0 + 2_100]);
      release();
      await clock.advanceTo(T0 + 3_500);
      expect(ticksOf(held.id)).toEqual([T0 + 100, T0 + 3_100]);
    });

    it('keeps probes of one slice apart across a cancel and re-add', async () => {
      const releases: Array<() => void> = [];
      const { clock, scheduler, ticks } = setup({
        executor: batch =>
          runsOf(
            batch,
            () => new Promise<void>(resolve => releases.push(resolve)),
          ),
      });
      scheduler.start();
      const [slice] = slices(1, 1_000);
      await scheduler.submit({ type: 'upsert', slices: [slice] });
      await clock.advance(1_000);
      expect(ticks()).toHaveLength(1);
      await scheduler.submit({ type: 'cancel', sliceIds: [slice.id] });
      await scheduler.submit({ type: 'upsert', slices: [slice] });
      await clock.advance(3_000);
      expect(ticks()).toHaveLength(1);
    });

    it('treats a failed or throwing executor as a finished run and logs it', async () => {
      let calls = 0;
      const { clock, scheduler, ticks, logger } = setup({
        executor: () => {
          calls += 1;
          if (calls === 1) throw new Error('sync boom');
          return Promise.reject(new Error('async boom'));
        },
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(1, 1_000) });
      await clock.advance(5_000);
      expect(ticks().length).toBeGreaterThanOrEqual(5);
      expect(scheduler.stats().inFlight).toBe(0);
      expect(logger.error).toHaveBeenCalledTimes(1); // throttled to once a minute
    });
  });

  describe('coalesced wake-ups', () => {
    const intervalMs = 1_000;
    const ids = [100, 101, 102, 110].map(offset =>
      idWithOffset(offset, intervalMs, `c${offset}`),
    );
    const fleet = ids.map(id => ({ id, intervalMs }));

    async function secondPeriodBatches(coalesceWindowMs: number) {
      const { clock, scheduler, deliveries } = setup({
        scheduler: { coalesceWindowMs },
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: fleet });
      await clock.advanceTo(T0 + 1_000);
      deliveries.length = 0;
      await clock.advanceTo(T0 + 2_000);
      return deliveries.map(d => ({
        at: d.at - T0,
        due: d.ticks.map(t => t.scheduledAt - T0),
      }));
    }

    it('batches ticks due within 2 ms of a dispatch, never delaying an isolated one', async () => {
      expect(await secondPeriodBatches(2)).toEqual([
        { at: 1_100, due: [1_100] },
        { at: 1_102, due: [1_101, 1_102] },
        { at: 1_110, due: [1_110] },
      ]);
    });

    it('wakes for every due time when the window is 0', async () => {
      expect(await secondPeriodBatches(0)).toEqual([
        { at: 1_100, due: [1_100] },
        { at: 1_101, due: [1_101] },
        { at: 1_102, due: [1_102] },
        { at: 1_110, due: [1_110] },
      ]);
    });

    it('hands ticks due at the same instant over in one batch, in scheduling order', async () => {
      const same = idWithOffset(100, intervalMs, 'same');
      const { clock, scheduler, deliveries } = setup();
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [{ id: same, intervalMs }, fleet[0]],
      });
      await clock.advanceTo(T0 + 1_100);
      expect(deliveries.at(-1)?.ticks.map(t => t.sliceId)).toEqual([
        same,
        fleet[0].id,
      ]);
    });
  });

  describe('slow work off the driver', () => {
    it('holds at most 8 changes; further producers wait for the driver', async () => {
      const { clock, scheduler } = setup();
      const accepted: number[] = [];
      for (let i = 0; i < 10; i++) {
        void scheduler
          .submit({ type: 'upsert', slices: slices(i + 1, 1_000) })
          .then(() => accepted.push(i));
      }
      await clock.advance(0);
      expect(accepted).toHaveLength(8);
      expect(scheduler.stats().queuedChanges).toBe(10);
      scheduler.start();
      await clock.advance(0);
      expect(accepted).toHaveLength(10);
      expect(scheduler.stats()).toMatchObject({
        queuedChanges: 0,
        liveSlices: 10,
      });
    });

    it('applies a big change a chunk per wake-up, firing due ticks in between', async () => {
      const intervalMs = 1_000;
      const early = { id: idWithOffset(0, intervalMs, 'early'), intervalMs };
      let liveAtDelivery: number[] = [];
      const { clock, scheduler } = setup({
        scheduler: { applyChunkSize: 10 },
        executor: () => {
          liveAtDelivery.push(scheduler.stats().liveSlices);
        },
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: [early] });
      await clock.advanceTo(T0 + 999); // `early` is due at T0 + 1000
      liveAtDelivery = [];
      await scheduler.submit({ type: 'upsert', slices: slices(35, 60_000) });
      clock.jump(1); // `early` falls due before the driver gets to the change
      await clock.advance(0);
      expect(liveAtDelivery[0]).toBe(1 + 10); // fired after the first chunk
      expect(scheduler.stats().liveSlices).toBe(36);
    });

    it('cancels what a chunked replace does not name only once all of it is applied', async () => {
      const { clock, scheduler } = setup({
        scheduler: { applyChunkSize: 10 },
      });
      scheduler.start();
      const named = slices(20, 60_000);
      await scheduler.submit({ type: 'upsert', slices: named });
      await clock.advance(0);
      const newcomers = slices(15, 60_000).map(s => ({
        ...s,
        id: `${s.id}-new`,
      }));
      await scheduler.submit({
        type: 'replace',
        slices: [...named.slice(0, 10), ...newcomers],
      });
      await clock.advance(0);
      expect(scheduler.stats()).toMatchObject({
        liveSlices: 25,
        queuedChanges: 0,
      });
      expect(scheduler.isCurrent(named[15].id, 16)).toBe(false);
    });

    it('loads desired slices off the driver and keeps the last ones while loading fails, backing off 30 s .. 300 s', async () => {
      let failing = false;
      const loadTimes: number[] = [];
      let now = () => T0;
      const load = jest.fn(async () => {
        loadTimes.push(now() - T0);
        if (failing) throw new Error('database unavailable');
        return slices(5, 10_000);
      });
      const { clock, scheduler, ticks, logger } = setup({
        scheduler: { loader: { load, refreshIntervalMs: 60_000 } },
      });
      now = () => clock.now();
      scheduler.start();
      await clock.advance(60_000);
      expect(scheduler.stats().liveSlices).toBe(5);

      failing = true;
      const firedBefore = ticks().length;
      await clock.advance(1_000_000);
      // 60 s refresh, then failures from 120 s: +30, +60, +120, +240, +300 s
      expect(loadTimes.map(t => t / 1000)).toEqual([
        0, 60, 120, 150, 210, 330, 570, 870,
      ]);
      expect(scheduler.stats().liveSlices).toBe(5);
      expect(ticks().length - firedBefore).toBe(5 * 100);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('still running the last known slices'),
        expect.any(Error),
      );

      failing = false;
      await clock.advance(150_000);
      expect(loadTimes.slice(-1)).toEqual([1_170_000]);
      expect(load).toHaveBeenCalledTimes(9);
    });
  });

  describe('metrics', () => {
    it('reports lateness, fired and skipped ticks, stale pops and sizes', async () => {
      const releases: Array<() => void> = [];
      const { clock, scheduler, metrics } = setup({
        executor: batch =>
          runsOf(
            batch,
            () => new Promise<void>(resolve => releases.push(resolve)),
          ),
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(4, 1_000) });
      await clock.advance(1_000);
      expect(metrics.fired).toBe(4);
      expect(metrics.lateness).toHaveLength(4);
      for (const latenessMs of metrics.lateness) {
        expect(latenessMs).toBeGreaterThanOrEqual(0);
        expect(latenessMs).toBeLessThanOrEqual(2); // the coalescing window
      }
      await clock.advance(1_000);
      expect(metrics.skipped['in-flight']).toBeGreaterThanOrEqual(4);
      releases.forEach(release => release());
      await clock.advance(0);
      clock.jump(2_500);
      await clock.advance(0);
      expect(metrics.skipped.missed).toBeGreaterThanOrEqual(4);
      expect(Math.min(...metrics.lateness.slice(4))).toBeGreaterThan(1_000);
      await scheduler.submit({
        type: 'cancel',
        sliceIds: [slices(1, 1)[0].id],
      });
      await clock.advance(1_000);
      expect(metrics.stalePops).toBe(1);
      expect(metrics.readers).toHaveLength(1);
      expect(metrics.readers[0]()).toEqual({ heapSize: 3, liveSlices: 3 });
      await scheduler.stop({ awaitInFlightMs: 0 });
      expect(metrics.readers).toHaveLength(0);
    });
  });

  describe('lifecycle', () => {
    it('leaves no timer behind and fires nothing after stop', async () => {
      const { clock, scheduler, ticks } = setup();
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(10, 1_000) });
      await clock.advance(1_500);
      const fired = ticks().length;
      await scheduler.stop();
      expect(clock.pendingTimers).toBe(0);
      await clock.advance(10_000);
      expect(ticks()).toHaveLength(fired);
      await expect(
        scheduler.submit({ type: 'upsert', slices: [] }),
      ).rejects.toThrow('stopped');
      expect(() => scheduler.start()).toThrow();
    });

    it('awaits running probes on stop, up to the bound', async () => {
      const releases: Array<() => void> = [];
      const { clock, scheduler, logger } = setup({
        executor: batch =>
          runsOf(
            batch,
            () => new Promise<void>(resolve => releases.push(resolve)),
          ),
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(2, 1_000) });
      await clock.advance(1_000);
      expect(releases).toHaveLength(2);

      let stopped = false;
      const stopping = scheduler
        .stop({ awaitInFlightMs: 5_000 })
        .then(() => (stopped = true));
      await clock.advance(1_000);
      releases[0]();
      await clock.advance(1_000);
      expect(stopped).toBe(false); // one probe still running
      await clock.advance(3_000);
      await stopping;
      expect(stopped).toBe(true);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('1 probes still running'),
      );
      expect(clock.pendingTimers).toBe(0);
    });

    it('returns from stop as soon as the running probes finish', async () => {
      const releases: Array<() => void> = [];
      const { clock, scheduler, logger } = setup({
        executor: batch =>
          runsOf(
            batch,
            () => new Promise<void>(resolve => releases.push(resolve)),
          ),
      });
      scheduler.start();
      await scheduler.submit({ type: 'upsert', slices: slices(1, 1_000) });
      await clock.advance(1_000);
      const stopping = scheduler.stop({ awaitInFlightMs: 60_000 });
      releases[0]();
      await stopping;
      expect(logger.warn).not.toHaveBeenCalled();
      expect(clock.pendingTimers).toBe(0);
    });
  });

  describe('on the real clock', () => {
    function countingClock() {
      const pending = new Set<unknown>();
      const clock: SchedulerClock = {
        now: systemClock.now,
        setTimer(callback, delayMs) {
          const handle: unknown = systemClock.setTimer(() => {
            pending.delete(handle);
            callback();
          }, delayMs);
          pending.add(handle);
          return handle;
        },
        clearTimer(handle) {
          pending.delete(handle);
          systemClock.clearTimer(handle);
        },
      };
      return { clock, pending };
    }

    async function runFor(ms: number) {
      await new Promise(resolve => setTimeout(resolve, ms));
    }

    it('never fires early and keeps every slice on its grid', async () => {
      const { clock, pending } = countingClock();
      const seen: Array<{ at: number; tick: DueTick<TestSlice> }> = [];
      const scheduler = SliceScheduler.create<TestSlice>({
        logger: mockServices.logger.mock(),
        clock,
        executor: batch => {
          const at = Date.now();
          batch.forEach(tick => seen.push({ at, tick }));
        },
      });
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: Array.from({ length: 50 }, (_, i) => ({
          id: `real-${i}`,
          intervalMs: 20 + (i % 5) * 10,
        })),
      });
      await runFor(400);
      await scheduler.stop();
      expect(pending.size).toBe(0);
      // About 570 ticks are due in 400 ms; a late wake-up skips a slice's
      // backlog, so a busy machine sees fewer, but every slice fires.
      expect(new Set(seen.map(({ tick }) => tick.sliceId)).size).toBe(50);
      expect(seen.length).toBeGreaterThan(100);
      for (const { at, tick } of seen) {
        expect(at).toBeGreaterThanOrEqual(tick.scheduledAt);
      }
      const bySlice = new Map<string, number[]>();
      for (const { tick } of seen) {
        bySlice.set(tick.sliceId, [
          ...(bySlice.get(tick.sliceId) ?? []),
          tick.scheduledAt,
        ]);
      }
      for (const [id, times] of bySlice) {
        const intervalMs = 20 + (Number(id.split('-')[1]) % 5) * 10;
        for (const at of times.slice(1)) {
          expect(at % intervalMs).toBe(staggerOffsetMs(id, intervalMs));
        }
      }
    });

    it('awaits a running probe on stop and leaves no timer', async () => {
      const { clock, pending } = countingClock();
      let finished = false;
      const scheduler = SliceScheduler.create<TestSlice>({
        logger: mockServices.logger.mock(),
        clock,
        executor: () =>
          runFor(50).then(() => {
            finished = true;
          }),
      });
      scheduler.start();
      await scheduler.submit({
        type: 'upsert',
        slices: [{ id: 'real', intervalMs: 20 }],
      });
      await runFor(30);
      await scheduler.stop({ awaitInFlightMs: 1_000 });
      expect(finished).toBe(true);
      expect(pending.size).toBe(0);
    });
  });
});
