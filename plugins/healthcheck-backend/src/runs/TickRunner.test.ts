import { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import { mockServices } from '@backstage/backend-test-utils';
import { Bulkhead } from '../admission';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { DueTick } from '../scheduler';
import { claimKeyAt } from '../scheduler';
import { CachedSliceStates } from './CachedSliceStates';
import { TickNotJudged } from './notJudged';
import { TickRunner } from './TickRunner';
import type { RunRecord } from '../model';
import type { RunnableSlice, TickClaims } from '../model';

const slice: RunnableSlice = {
  id: 'healthcheck:payments-health:system%3Adefault%2Fpayments:production',
  intervalMs: 10_000,
  checkId: 'payments-health',
  systemRef: 'system:default/payments',
  environment: 'production',
  type: 'scripted',
  target: 'http://127.0.0.1:7010/production/payments/health',
  timeoutMs: 2000,
  config: {},
  conditions: ['[STATUS] == 200'],
  thresholds: { failure: 2, success: 1 },
};

/** A run now claimed under its own time, holding nothing: one instance's view. */
const claimNowHere: TickClaims['claimNow'] = async (_slice, at) => ({
  scheduledAt: at,
  claimed: true,
  releaseHolds: async () => {},
});

function tick(at: number, generation = 1, s = slice): DueTick<RunnableSlice> {
  return { sliceId: s.id, scheduledAt: at, generation, slice: s };
}

/** A probe type that answers from a script, one result a run. */
function scriptedProbe(results: Array<Partial<ProbeResult>>): ProbeType & {
  calls: number;
} {
  const probe = {
    type: 'scripted',
    calls: 0,
    run: async () => {
      const next = results[Math.min(probe.calls, results.length - 1)];
      probe.calls++;
      return { ok: true, durationMs: 5, ...next };
    },
  };
  return probe;
}

/** Makes the slices suspect: their last run held the slot to its timeout. */
function primeAsTimedOut(bulkhead: Bulkhead, ...slices: RunnableSlice[]) {
  for (const s of slices) {
    bulkhead.prime(s.id, [
      {
        outcome: 'fail',
        durationMs: 2000,
        timeoutMsUsed: 2000,
        errorKind: 'timeout',
        fullTimeoutProbe: true,
      },
    ]);
  }
}

function runnerWith(
  probes: ProbeType<any>[],
  options: Partial<ConstructorParameters<typeof TickRunner>[0]> = {},
) {
  const probeTypes = new ProbeTypeRegistry();
  probes.forEach(p => probeTypes.add(p));
  const records: RunRecord[] = [];
  const runner = new TickRunner({
    probeTypes,
    bulkhead: new Bulkhead({ concurrency: 4, laneCapacity: 1 }),
    logger: mockServices.logger.mock(),
    isCurrent: () => true,
    onRun: record => {
      records.push(record);
    },
    ...options,
  });
  return { runner, records };
}

describe('TickRunner', () => {
  it('probes a due tick, judges it by its conditions and records the run', async () => {
    const probe = scriptedProbe([{ status: 200, body: 'ok' }]);
    const { runner, records } = runnerWith([probe]);

    const record = await runner.runTick(tick(1_000_000));

    expect(probe.calls).toBe(1);
    expect(record).toMatchObject({
      sliceId: slice.id,
      systemRef: 'system:default/payments',
      environment: 'production',
      scheduledAt: 1_000_000,
      outcome: 'pass',
      previousStatus: 'unknown',
      status: 'healthy',
      statusChanged: true,
      lane: 'normal',
      timeoutMs: 2000,
      conditions: [{ condition: '[STATUS] == 200', success: true }],
    });
    expect(records).toEqual([record]);
    expect(record?.probe).not.toHaveProperty('body');
  });

  it('turns healthy into unhealthy only after the failure threshold, per slice', async () => {
    const probe = scriptedProbe([
      { status: 200 },
      { status: 500 },
      { status: 500 },
    ]);
    const { runner } = runnerWith([probe]);

    const statuses = [];
    for (const at of [10_000, 20_000, 30_000]) {
      statuses.push((await runner.runTick(tick(at)))?.status);
    }

    expect(statuses).toEqual(['healthy', 'healthy', 'unhealthy']);
  });

  it("advances a slice's state only with its write, so a change whose write failed is seen again", async () => {
    const probe = scriptedProbe([{ status: 200 }, { status: 500 }]);
    let failNextWrite = false;
    const written: RunRecord[] = [];
    const claims: TickClaims = {
      claim: async ticks => [...ticks],
      release: async () => {},
      claimNow: claimNowHere,
      complete: async record => {
        if (failNextWrite) {
          failNextWrite = false;
          throw new Error('Connection terminated unexpectedly');
        }
        written.push(record);
      },
    };
    const flips = { ...slice, thresholds: { failure: 1, success: 1 } };
    const { runner } = runnerWith([probe], { claims });

    await runner.runTick(tick(10_000, 1, flips));
    failNextWrite = true;
    const lost = await runner.runTick(tick(20_000, 1, flips));
    const next = await runner.runTick(tick(30_000, 1, flips));

    expect(lost).toMatchObject({ status: 'unhealthy', statusChanged: true });
    expect(
      written.map(r => [r.scheduledAt, r.previousStatus, r.status]),
    ).toEqual([
      [10_000, 'unknown', 'healthy'],
      [30_000, 'healthy', 'unhealthy'],
    ]);
    expect(next?.statusChanged).toBe(true);
  });

  it('reports each run to its metrics: type, outcome, error kind, time and status change', async () => {
    const probe = scriptedProbe([
      { status: 200, durationMs: 12 },
      {
        ok: false,
        durationMs: 2000,
        error: { kind: 'timeout', message: 'Timed out after 2000 ms' },
      },
      {
        ok: false,
        durationMs: 3,
        error: { kind: 'refused', message: 'connect ECONNREFUSED' },
      },
    ]);
    const recordRun = jest.fn();
    const { runner } = runnerWith([probe], { metrics: { recordRun } });

    for (const at of [10_000, 20_000, 30_000]) {
      await runner.runTick(tick(at));
    }

    expect(recordRun.mock.calls.map(([run]) => run)).toEqual([
      {
        type: 'scripted',
        outcome: 'pass',
        errorKind: undefined,
        durationMs: 12,
        status: 'healthy',
        statusChanged: true,
      },
      {
        type: 'scripted',
        outcome: 'fail',
        errorKind: 'timeout',
        durationMs: 2000,
        status: 'healthy',
        statusChanged: false,
      },
      {
        type: 'scripted',
        outcome: 'fail',
        errorKind: 'refused',
        durationMs: 3,
        status: 'unhealthy',
        statusChanged: true,
      },
    ]);
  });

  it('shows the failing condition with the value it saw', async () => {
    const { runner } = runnerWith([scriptedProbe([{ status: 503 }])]);
    const record = await runner.runTick(tick(10_000));
    expect(record?.conditions[0].display).toBe('[STATUS] (503) == 200');
    expect(record?.outcome).toBe('fail');
  });

  it('drops a tick whose generation is stale: no probe, nothing recorded', async () => {
    const probe = scriptedProbe([{ status: 200 }]);
    const { runner, records } = runnerWith([probe], {
      isCurrent: t => t.generation === 2,
    });

    await expect(runner.runTick(tick(10_000, 1))).resolves.toBeUndefined();

    expect(probe.calls).toBe(0);
    expect(records).toEqual([]);
    expect(runner.stats().staleTicks).toBe(1);
  });

  it('drops a tick whose environment is no longer effective', async () => {
    const probe = scriptedProbe([{ status: 200 }]);
    const { runner, records } = runnerWith([probe], {
      isEffective: s => s.environment !== 'production',
    });

    await runner.runTick(tick(10_000));

    expect(probe.calls).toBe(0);
    expect(records).toEqual([]);
    expect(runner.stats().staleTicks).toBe(1);
  });

  it('fails the run of an unknown probe type and says which types exist', async () => {
    const { runner } = runnerWith([scriptedProbe([{}])]);
    const record = await runner.runTick(
      tick(10_000, 1, { ...slice, type: 'smtp' }),
    );
    expect(record?.outcome).toBe('fail');
    expect(record?.error).toEqual({
      kind: 'config',
      message: "Unknown probe type 'smtp'; known types: scripted",
    });
  });

  it('turns a probe that throws into a failed run', async () => {
    const throwing: ProbeType = {
      type: 'scripted',
      run: async () => {
        throw new Error('socket hang up');
      },
    };
    const { runner } = runnerWith([throwing]);
    const record = await runner.runTick(tick(10_000));
    expect(record?.outcome).toBe('fail');
    expect(record?.error).toEqual({ kind: 'other', message: 'socket hang up' });
  });

  it('abandons a probe that ignores its signal shortly after the timeout', async () => {
    const deaf: ProbeType = {
      type: 'scripted',
      run: () => new Promise<ProbeResult>(() => {}),
    };
    const { runner } = runnerWith([deaf]);
    const started = Date.now();
    const record = await runner.runTick(
      tick(Date.now(), 1, { ...slice, timeoutMs: 40 }),
    );
    expect(record?.error?.kind).toBe('timeout');
    expect(record?.outcome).toBe('fail');
    // The bound is loose on purpose; what matters is that it returns at all.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  /** A probe that answers only when its signal aborts, and tells why. */
  function politeProbe() {
    const seen: { reason?: unknown } = {};
    const probe: ProbeType = {
      type: 'scripted',
      run: ({ signal }) =>
        new Promise<ProbeResult>(resolve => {
          signal.addEventListener('abort', () => {
            seen.reason = signal.reason;
            resolve({
              ok: false,
              durationMs: 1,
              error: { kind: 'other', message: 'aborted' },
            });
          });
        }),
    };
    return { probe, seen };
  }

  it('tells the probe its time is up with a TimeoutError', async () => {
    const { probe, seen } = politeProbe();
    const { runner } = runnerWith([probe]);
    await runner.runTick(tick(Date.now(), 1, { ...slice, timeoutMs: 30 }));
    expect((seen.reason as Error).name).toBe('TimeoutError');
  });

  it('aborts the signal of a probe under way when the runner shuts down, and records no failure for it', async () => {
    const { probe, seen } = politeProbe();
    const released: unknown[] = [];
    const recordUnjudged = jest.fn();
    const { runner, records } = runnerWith([probe], {
      claims: {
        claim: async ticks => [...ticks],
        release: async ticks => {
          released.push(...ticks);
        },
        claimNow: claimNowHere,
        complete: async () => {},
      },
      metrics: { recordRun: jest.fn(), recordUnjudged },
    });
    const due = tick(Date.now(), 1, { ...slice, timeoutMs: 60_000 });
    const run = runner.runTick(due);
    await new Promise(resolve => setTimeout(resolve, 20));
    runner.abortAll();

    // Not a timeout of the target: the deploy stopped the probe.
    await expect(run).resolves.toBeUndefined();
    expect((seen.reason as Error).name).toBe('AbortError');
    expect(records).toEqual([]);
    expect(runner.stats().notJudged).toEqual({ database: 0, stopping: 1 });
    expect(recordUnjudged).toHaveBeenCalledWith('stopping');
    // Its claim is given back, as a deferred tick's is.
    expect(released).toEqual([
      { sliceId: slice.id, scheduledAt: due.scheduledAt },
    ]);
  });

  it('keeps the failure streak of a slice whose probe was stopped: the next failure is still only the second', async () => {
    const states = new Map<string, any>();
    const { probe } = politeProbe();
    let answer: 'polite' | 'refused' = 'refused';
    const mixed: ProbeType = {
      type: 'scripted',
      run: context =>
        answer === 'polite'
          ? probe.run(context)
          : Promise.resolve({
              ok: false,
              durationMs: 1,
              error: { kind: 'refused', message: 'connect ECONNREFUSED' },
            }),
    };
    const { runner } = runnerWith([mixed], {
      states: {
        get: id => states.get(id),
        set: (id, state) => {
          states.set(id, state);
        },
      },
    });
    await runner.runTick(tick(10_000));
    expect(states.get(slice.id)).toMatchObject({ consecutiveFailures: 1 });

    answer = 'polite';
    const stopped = runner.runTick(
      tick(20_000, 1, { ...slice, timeoutMs: 60_000 }),
    );
    await new Promise(resolve => setTimeout(resolve, 20));
    runner.abortAll();
    await expect(stopped).resolves.toBeUndefined();

    expect(states.get(slice.id)).toMatchObject({
      status: 'unknown',
      consecutiveFailures: 1,
    });
  });

  it('records the answer of a probe that succeeded although the runner was stopping', async () => {
    const finishing: ProbeType = {
      type: 'scripted',
      run: ({ signal }) =>
        new Promise<ProbeResult>(resolve => {
          signal.addEventListener('abort', () =>
            resolve({ ok: true, durationMs: 1, status: 200 }),
          );
        }),
    };
    const { runner, records } = runnerWith([finishing]);
    const run = runner.runTick(
      tick(Date.now(), 1, { ...slice, timeoutMs: 60_000 }),
    );
    await new Promise(resolve => setTimeout(resolve, 20));
    runner.abortAll();
    expect((await run)?.outcome).toBe('pass');
    expect(records).toHaveLength(1);
  });

  it('records nothing for a tick whose probe type could not judge it, and counts it', async () => {
    const blind: ProbeType = {
      type: 'scripted',
      run: async () => {
        throw new TickNotJudged(
          'database',
          'Could not read the last pings: connect ECONNREFUSED',
        );
      },
    };
    const logger = mockServices.logger.mock();
    const { runner, records } = runnerWith([blind], { logger });

    await expect(runner.runTick(tick(10_000))).resolves.toBeUndefined();
    await expect(runner.runTick(tick(20_000))).resolves.toBeUndefined();

    expect(records).toEqual([]);
    expect(runner.stats()).toMatchObject({
      runs: 0,
      notJudged: { database: 2, stopping: 0 },
    });
    // Said once, not once a tick.
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0][0]).toMatch(
      /not judged \(database\): Could not read the last pings: connect ECONNREFUSED; no run recorded, its status stays/,
    );
  });

  it('leaves no timer behind once the probe has answered', async () => {
    jest.useFakeTimers();
    try {
      const { runner } = runnerWith([scriptedProbe([{}])]);
      const record = await runner.runTick(tick(10_000));
      expect(record?.error).toBeUndefined();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives the probe a signal that aborts at the timeout', async () => {
    let sawAbort = false;
    const polite: ProbeType = {
      type: 'scripted',
      run: ({ signal }) =>
        new Promise<ProbeResult>(resolve => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({
              ok: false,
              durationMs: 30,
              error: { kind: 'timeout', message: 'aborted' },
            });
          });
        }),
    };
    const { runner } = runnerWith([polite]);
    const record = await runner.runTick(
      tick(Date.now(), 1, { ...slice, timeoutMs: 30 }),
    );
    expect(sawAbort).toBe(true);
    expect(record?.error).toEqual({ kind: 'timeout', message: 'aborted' });
  });

  it('records nothing for a tick the bulkhead defers', async () => {
    const bulkhead = new Bulkhead({
      concurrency: 4,
      laneCapacity: 1,
      suspectAfterRuns: 1,
    });
    // Two slices whose last run held the slot to the timeout: both suspect.
    const other = { ...slice, id: `${slice.id}-2` };
    primeAsTimedOut(bulkhead, slice, other);
    let release: () => void = () => {};
    const slow: ProbeType = {
      type: 'scripted',
      run: () =>
        new Promise<ProbeResult>(resolve => {
          release = () => resolve({ ok: true, durationMs: 1, status: 200 });
        }),
    };
    const { runner, records } = runnerWith([slow], { bulkhead });

    const first = runner.runTick(tick(Date.now()));
    await new Promise(r => setImmediate(r));
    const second = await runner.runTick(tick(Date.now(), 1, other));

    expect(second).toBeUndefined();
    expect(runner.stats().deferred.lane_full).toBe(1);
    release();
    await first;
    expect(records.map(r => r.sliceId)).toEqual([slice.id]);
  });

  it('tells the bulkhead which endpoint a slice probes, so a dead host is judged once', async () => {
    const bulkhead = new Bulkhead({ concurrency: 4, laneCapacity: 1 });
    const run = jest.spyOn(bulkhead, 'run');
    const { runner } = runnerWith([scriptedProbe([{ status: 200 }])], {
      bulkhead,
    });

    await runner.runTick(tick(10_000));

    expect(run.mock.calls[0][0]).toMatchObject({
      sliceId: slice.id,
      endpointKey: 'http://127.0.0.1:7010',
    });
  });

  it('forgets a removed slice: its state and its bulkhead history, after the run under way if any', async () => {
    const states = new CachedSliceStates({
      readSliceStates: async () => new Map(),
    });
    const bulkhead = new Bulkhead({ concurrency: 4, laneCapacity: 1 });
    let release = () => {};
    const probe: ProbeType = {
      type: 'scripted',
      run: () =>
        new Promise<ProbeResult>(resolve => {
          release = () => resolve({ ok: true, durationMs: 1, status: 200 });
        }),
    };
    const { runner } = runnerWith([probe], { states, bulkhead });
    const removed = { ...slice, id: `${slice.id}-removed` };

    const first = runner.runTick(tick(10_000));
    await new Promise(resolve => setImmediate(resolve));
    release();
    await first;
    const underWay = runner.runTick(tick(10_000, 1, removed));
    await new Promise(resolve => setImmediate(resolve));
    expect(bulkhead.stats().trackedSlices).toBe(2);

    runner.forget([slice.id, removed.id]);
    expect(states.get(slice.id)).toBeUndefined();
    expect(bulkhead.stats().trackedSlices).toBe(1); // the one under way
    release();
    await underWay;
    expect(states.get(removed.id)).toBeUndefined();
    expect(bulkhead.stats().trackedSlices).toBe(0);
  });

  describe('run now', () => {
    /** A probe type whose runs hang until released, in order. */
    function heldProbe() {
      const releases: Array<() => void> = [];
      const probe: ProbeType & { calls: number } = {
        type: 'scripted',
        calls: 0,
        run: () => {
          probe.calls++;
          return new Promise<ProbeResult>(resolve => {
            releases.push(() =>
              resolve({ ok: true, durationMs: 1, status: 200 }),
            );
          });
        },
      };
      return { probe, releaseAll: () => releases.splice(0).forEach(r => r()) };
    }
    const settle = () => new Promise(resolve => setImmediate(resolve));
    const other = { ...slice, id: `${slice.id}-2`, target: 'http://other' };

    it('waits for a slot of the bulkhead like any tick', async () => {
      const { probe, releaseAll } = heldProbe();
      const bulkhead = new Bulkhead({ concurrency: 2, laneCapacity: 1 });
      const { runner } = runnerWith([probe], { bulkhead });

      const scheduled = runner.runTick(tick(Date.now(), 1, other));
      const runs = [
        runner.runNow(slice),
        runner.runNow({ ...slice, id: `${slice.id}-3` }),
      ];
      await settle();

      expect(probe.calls).toBe(2);
      expect(bulkhead.stats()).toMatchObject({ inFlight: 2, queueLength: 1 });
      releaseAll();
      await settle();
      expect(probe.calls).toBe(3);
      releaseAll();
      const records = await Promise.all(
        (await Promise.all(runs)).map(run => run.done),
      );
      await scheduled;
      expect(records.map(record => record?.lane)).toEqual(['normal', 'normal']);
    });

    it('answers a run now of a slice whose run now is under way with that run, and probes once', async () => {
      const { probe, releaseAll } = heldProbe();
      const { runner, records } = runnerWith([probe]);

      const first = await runner.runNow(slice, 1_000);
      const again = await runner.runNow(slice, 2_000);
      await settle();

      expect(first).toMatchObject({
        runId: `${slice.id}@1000`,
        joined: false,
      });
      expect(again).toMatchObject({ runId: `${slice.id}@1000`, joined: true });
      expect(probe.calls).toBe(1);
      releaseAll();
      expect(await again.done).toBe(await first.done);
      expect(records).toHaveLength(1);

      const later = await runner.runNow(slice, 3_000);
      expect(later).toMatchObject({ runId: `${slice.id}@3000`, joined: false });
      await settle();
      releaseAll();
      await later.done;
      expect(probe.calls).toBe(2);
    });

    it('joins a scheduled run of the slice under way instead of probing beside it', async () => {
      const { probe, releaseAll } = heldProbe();
      const { runner } = runnerWith([probe]);

      const scheduled = runner.runTick(tick(10_000));
      const run = await runner.runNow(slice, 12_345);
      await settle();

      expect(run).toMatchObject({ runId: `${slice.id}@10000`, joined: true });
      expect(probe.calls).toBe(1);
      releaseAll();
      expect((await run.done)?.scheduledAt).toBe(10_000);
      await scheduled;
    });

    it('defers a scheduled tick that falls due while a run now of the slice is under way, and gives its claim back', async () => {
      const { probe, releaseAll } = heldProbe();
      const released: Array<{ sliceId: string; scheduledAt: number }> = [];
      const claims: TickClaims = {
        claim: async ticks => [...ticks],
        release: async ticks => {
          released.push(...ticks);
        },
        complete: async () => {},
        claimNow: claimNowHere,
      };
      const { runner } = runnerWith([probe], { claims });

      const run = await runner.runNow(slice, 5_000);
      await settle();
      const scheduled = await runner.runTick(tick(10_000));

      expect(scheduled).toBeUndefined();
      expect(runner.stats().deferred.in_flight).toBe(1);
      expect(released).toEqual([{ sliceId: slice.id, scheduledAt: 10_000 }]);
      releaseAll();
      expect((await run.done)?.scheduledAt).toBe(5_000);
      expect(probe.calls).toBe(1);
    });

    it('is deferred by the bulkhead like any tick when its slice is suspect and the lane is full', async () => {
      const bulkhead = new Bulkhead({
        concurrency: 4,
        laneCapacity: 1,
        suspectAfterRuns: 1,
      });
      primeAsTimedOut(bulkhead, slice, other);
      const { probe, releaseAll } = heldProbe();
      const { runner, records } = runnerWith([probe], { bulkhead });

      const first = await runner.runNow(other);
      await settle();
      const second = await runner.runNow(slice);

      expect(await second.done).toBeUndefined();
      expect(runner.stats().deferred.lane_full).toBe(1);
      releaseAll();
      await first.done;
      expect(records.map(r => r.sliceId)).toEqual([other.id]);
    });
  });

  describe('with claims shared by several instances', () => {
    function fakeClaims(wins: (sliceId: string) => boolean) {
      const claimed: Array<{ sliceId: string; scheduledAt: number }> = [];
      const released: Array<{ sliceId: string; scheduledAt: number }> = [];
      const completed: RunRecord[] = [];
      const claims: TickClaims = {
        claim: async ticks => {
          claimed.push(
            ...ticks.map(t => ({
              sliceId: t.sliceId,
              scheduledAt: t.scheduledAt,
            })),
          );
          return ticks.filter(t => wins(t.sliceId));
        },
        release: async ticks => {
          released.push(...ticks);
        },
        complete: async record => {
          completed.push(record);
        },
        claimNow: claimNowHere,
      };
      return { claims, claimed, released, completed };
    }

    it('runs only the ticks this instance claimed, and writes their results into the claims', async () => {
      const other = { ...slice, id: `${slice.id}-other` };
      const probe = scriptedProbe([{ status: 200 }]);
      const { claims, completed } = fakeClaims(id => id === slice.id);
      const { runner } = runnerWith([probe], { claims });
      const grid = claimKeyAt(slice.id, 2_000_000_000_000, slice.intervalMs);
      const gridOther = claimKeyAt(
        other.id,
        2_000_000_000_000,
        slice.intervalMs,
      );

      const results = await Promise.all(
        runner.execute([tick(grid), tick(gridOther, 1, other)]).values(),
      );

      expect(results.map(r => r?.sliceId)).toEqual([slice.id, undefined]);
      expect(probe.calls).toBe(1);
      expect(runner.stats().notClaimed).toBe(1);
      expect(completed.map(r => r.sliceId)).toEqual([slice.id]);
    });

    it('claims a first probe between grid points under the grid tick before it', async () => {
      const { claims, claimed } = fakeClaims(() => true);
      const { runner } = runnerWith([scriptedProbe([{ status: 200 }])], {
        claims,
      });
      const grid = claimKeyAt(slice.id, 2_000_000_000_000, slice.intervalMs);

      const [record] = await Promise.all(
        runner.execute([tick(grid + 1234)]).values(),
      );

      expect(claimed).toEqual([{ sliceId: slice.id, scheduledAt: grid }]);
      expect(record?.scheduledAt).toBe(grid);
    });

    it('claims no stale tick', async () => {
      const { claims, claimed } = fakeClaims(() => true);
      const { runner } = runnerWith([scriptedProbe([{ status: 200 }])], {
        claims,
        isCurrent: () => false,
      });
      await Promise.all(runner.execute([tick(10_000)]).values());
      expect(claimed).toEqual([]);
      expect(runner.stats().staleTicks).toBe(1);
    });

    it('hands each tick of a batch back with its own run, a stale one among them', async () => {
      const [first, stale, last] = ['a', 'b', 'c'].map(suffix => ({
        ...slice,
        id: `${slice.id}-${suffix}`,
      }));
      const { claims } = fakeClaims(() => true);
      const { runner } = runnerWith([scriptedProbe([{ status: 200 }])], {
        claims,
        isEffective: s => s.id !== stale.id,
      });
      const batch = [first, stale, last].map(s =>
        tick(claimKeyAt(s.id, 2_000_000_000_000, s.intervalMs), 1, s),
      );

      const runs = runner.execute(batch);

      expect(runs.size).toBe(batch.length);
      expect(await runs.get(batch[0])).toMatchObject({ sliceId: first.id });
      expect(await runs.get(batch[1])).toBeUndefined();
      expect(await runs.get(batch[2])).toMatchObject({ sliceId: last.id });
      expect(runner.stats().staleTicks).toBe(1);
    });

    it('gives back the claim of a tick that went stale while it was being claimed', async () => {
      const { claims, claimed, released, completed } = fakeClaims(() => true);
      let effective = true;
      const probe = scriptedProbe([{ status: 200 }]);
      const { runner } = runnerWith([probe], {
        claims: {
          ...claims,
          claim: async ticks => {
            const won = await claims.claim(ticks);
            effective = false; // the environment went away meanwhile
            return won;
          },
        },
        isEffective: () => effective,
      });
      const grid = claimKeyAt(slice.id, 2_000_000_000_000, slice.intervalMs);

      await Promise.all(runner.execute([tick(grid)]).values());

      expect(claimed).toEqual([{ sliceId: slice.id, scheduledAt: grid }]);
      expect(released).toEqual([{ sliceId: slice.id, scheduledAt: grid }]);
      expect(probe.calls).toBe(0);
      expect(completed).toEqual([]);
      expect(runner.stats().staleTicks).toBe(1);
    });
  });
});
