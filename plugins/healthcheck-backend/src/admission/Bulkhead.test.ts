import { Bulkhead, BulkheadResult, BulkheadWork } from './Bulkhead';
import { RunSummary } from './classifySlice';
import { AdmissionMetricsRecorder, MetricAttributes } from './metrics';
import { AdmissionOptions } from './options';

const TIMEOUT_MS = 5000;

class FakeClock {
  nowMs = 1_767_225_600_000;
  now = () => this.nowMs;
  advance(ms: number) {
    this.nowMs += ms;
  }
}

class RecordingMetrics implements AdmissionMetricsRecorder {
  readonly records: Array<{
    name: string;
    value: number;
    attributes?: MetricAttributes;
  }> = [];
  counter(name: string) {
    return {
      add: (value: number, attributes?: MetricAttributes) =>
        this.records.push({ name, value, attributes }),
    };
  }
  histogram(name: string) {
    return {
      record: (value: number, attributes?: MetricAttributes) =>
        this.records.push({ name, value, attributes }),
    };
  }
  named(name: string) {
    return this.records
      .filter(record => record.name === name)
      .map(({ value, attributes }) => ({ value, attributes }));
  }
}

/** Probes that finish only when the test says so. */
class HeldProbes {
  readonly started: Array<{
    sliceId: string;
    timeoutMs: number;
    finish(summary: RunSummary): void;
  }> = [];

  work(sliceId: string): BulkheadWork {
    return timeoutMs =>
      new Promise(resolve => {
        this.started.push({ sliceId, timeoutMs, finish: resolve });
      });
  }

  startedIds(): string[] {
    return this.started.map(probe => probe.sliceId);
  }

  find(sliceId: string) {
    const probe = this.started.find(p => p.sliceId === sliceId);
    if (!probe) {
      throw new Error(`${sliceId} has not started`);
    }
    return probe;
  }
}

const passIn =
  (durationMs: number): BulkheadWork =>
  async () => ({ outcome: 'pass', durationMs });

/** A target that accepts connections and never answers. */
const neverAnswers: BulkheadWork = async timeoutMs => ({
  outcome: 'fail',
  durationMs: timeoutMs,
  errorKind: 'timeout',
});

function setup(options: Partial<AdmissionOptions> = {}) {
  const clock = new FakeClock();
  const metrics = new RecordingMetrics();
  const bulkhead = new Bulkhead(options, { clock, metrics });
  const request = (sliceId: string, dueAt = clock.nowMs) => ({
    sliceId,
    dueAt,
    timeoutMs: TIMEOUT_MS,
  });
  const run = (sliceId: string, work: BulkheadWork) =>
    bulkhead.run(request(sliceId), work);
  return { clock, metrics, bulkhead, request, run };
}

/** Healthy once at 40 ms (a baseline), then three full timeouts. */
async function makeSuspect(
  run: (sliceId: string, work: BulkheadWork) => Promise<BulkheadResult>,
  sliceId: string,
) {
  await run(sliceId, passIn(40));
  for (let i = 0; i < 3; i++) {
    await run(sliceId, neverAnswers);
  }
}

function laneOf(result: BulkheadResult) {
  return result.deferred ?? result.lane;
}

describe('Bulkhead', () => {
  it('runs healthy slices in the normal lane at their full timeout, in order', async () => {
    const { bulkhead, run } = setup({ concurrency: 2, laneCapacity: 1 });
    const probes = new HeldProbes();
    const results = ['a', 'b', 'c', 'd'].map(id => run(id, probes.work(id)));

    expect(probes.startedIds()).toEqual(['a', 'b']);
    expect(bulkhead.stats()).toMatchObject({ inFlight: 2, queueLength: 2 });

    probes.find('b').finish({ outcome: 'pass', durationMs: 3 });
    await results[1];
    expect(probes.startedIds()).toEqual(['a', 'b', 'c']);
    probes.find('a').finish({ outcome: 'pass', durationMs: 3 });
    await results[0];
    expect(probes.startedIds()).toEqual(['a', 'b', 'c', 'd']);

    expect(probes.started.map(p => p.timeoutMs)).toEqual([
      5000, 5000, 5000, 5000,
    ]);
    probes.find('c').finish({ outcome: 'pass', durationMs: 3 });
    probes.find('d').finish({ outcome: 'pass', durationMs: 3 });
    expect((await Promise.all(results)).map(laneOf)).toEqual([
      'normal',
      'normal',
      'normal',
      'normal',
    ]);
  });

  it('measures and reports the queue wait from due time to start', async () => {
    const { clock, metrics, bulkhead, request } = setup({
      concurrency: 2,
      laneCapacity: 1,
    });
    const probes = new HeldProbes();
    const dueAt = clock.nowMs;
    const first = bulkhead.run(request('a', dueAt), probes.work('a'));
    bulkhead.run(request('b', dueAt), probes.work('b'));
    const third = bulkhead.run(request('c', dueAt), probes.work('c'));

    clock.advance(250);
    probes.find('a').finish({ outcome: 'pass', durationMs: 250 });
    await first;
    probes.find('c').finish({ outcome: 'pass', durationMs: 4 });

    expect(await first).toMatchObject({ queueWaitMs: 0 });
    expect(await third).toMatchObject({ queueWaitMs: 250 });
    expect(metrics.named('healthcheck.admission.queue_wait')).toEqual([
      { value: 0, attributes: { lane: 'normal' } },
      { value: 0, attributes: { lane: 'normal' } },
      { value: 0.25, attributes: { lane: 'normal' } },
    ]);
  });

  it('counts a tick that starts before it is due as no wait', async () => {
    const { clock, bulkhead, request } = setup();
    const result = await bulkhead.run(
      request('a', clock.nowMs + 1000),
      passIn(3),
    );
    expect(result).toMatchObject({ queueWaitMs: 0 });
  });

  it('makes a slice suspect after three slow transport failures', async () => {
    const { bulkhead, run } = setup();
    await run('down', passIn(40));
    await run('down', neverAnswers);
    await run('down', neverAnswers);
    expect(bulkhead.classification('down').suspect).toBe(false);
    await run('down', neverAnswers);
    expect(bulkhead.classification('down')).toEqual({
      suspect: true,
      slowFailureStreak: 3,
      shrunkRunsInARow: 0,
      baselineMs: 40,
    });

    const probes = new HeldProbes();
    run('down', probes.work('down'));
    expect(probes.find('down').timeoutMs).toBe(1000);
    expect(bulkhead.stats().inFlightByLane).toEqual({ normal: 0, suspect: 1 });
  });

  it('keeps a suspect slice suspect while its shrunk runs time out, with a full-timeout probe every 5th run', async () => {
    // The seed judged slowness against the configured 5 s: its first 1 s
    // timeout looked fast, the slice went back to the normal lane, and the
    // lane stopped holding after one run.
    const { bulkhead, run } = setup();
    await makeSuspect(run, 'down');

    const lanes: string[] = [];
    const timeouts: number[] = [];
    for (let i = 0; i < 11; i++) {
      const result = await run('down', neverAnswers);
      lanes.push(laneOf(result));
      timeouts.push(result.deferred ? 0 : result.timeoutMs);
    }
    expect(lanes).toEqual(Array(11).fill('suspect'));
    expect(timeouts).toEqual([
      1000, 1000, 1000, 1000, 5000, 1000, 1000, 1000, 1000, 5000, 1000,
    ]);
    expect(bulkhead.classification('down').slowFailureStreak).toBe(14);
  });

  it('sends a slice back to the normal lane at its full timeout once a recovery probe passes', async () => {
    // Recovered, but now answering in 2 s: more than the shrunk 1 s.
    const { run } = setup();
    await makeSuspect(run, 'slow');
    const slowAnswer: BulkheadWork = async timeoutMs =>
      timeoutMs >= 2000
        ? { outcome: 'pass', durationMs: 2000 }
        : { outcome: 'fail', durationMs: timeoutMs, errorKind: 'timeout' };

    const results: Array<string> = [];
    for (let i = 0; i < 7; i++) {
      const result = await run('slow', slowAnswer);
      results.push(
        result.deferred ??
          `${result.lane} ${result.timeoutMs} ${result.run.outcome}`,
      );
    }
    expect(results).toEqual([
      'suspect 1000 fail',
      'suspect 1000 fail',
      'suspect 1000 fail',
      'suspect 1000 fail',
      'suspect 5000 pass',
      'normal 5000 pass',
      'normal 5000 pass',
    ]);
  });

  it('never shrinks the timeout of a slice that has no healthy run', async () => {
    const { run, bulkhead } = setup();
    for (let i = 0; i < 3; i++) {
      await run('never-up', neverAnswers);
    }
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(await run('never-up', neverAnswers));
    }
    expect(
      results.map(r => (r.deferred ? r.deferred : `${r.lane} ${r.timeoutMs}`)),
    ).toEqual(['suspect 5000', 'suspect 5000', 'suspect 5000']);
    expect(bulkhead.classification('never-up').baselineMs).toBeUndefined();
  });

  it('holds the suspect lane at its capacity under load, and frees deferred ticks at once', async () => {
    const { bulkhead, run, metrics } = setup({
      concurrency: 10,
      laneCapacity: 3,
    });
    const down = Array.from({ length: 8 }, (_, i) => `down-${i}`);
    for (const id of down) {
      await makeSuspect(run, id);
    }

    const probes = new HeldProbes();
    const work = jest.fn((id: string) => probes.work(id));
    const results = down.map(id => run(id, timeoutMs => work(id)(timeoutMs)));

    expect(probes.startedIds()).toEqual(['down-0', 'down-1', 'down-2']);
    expect(bulkhead.stats()).toMatchObject({
      inFlight: 3,
      inFlightByLane: { normal: 0, suspect: 3 },
      queueLength: 0,
      deferrals: { lane_full: 5, in_flight: 0, no_slot: 0 },
    });
    // The five deferred ticks are already settled, without their probe.
    const settled = await Promise.race([
      Promise.all(results.slice(3)),
      new Promise(resolve => setImmediate(() => resolve('pending'))),
    ]);
    expect(settled).toEqual(Array(5).fill({ deferred: 'lane_full' }));
    expect(work).toHaveBeenCalledTimes(3);
    expect(metrics.named('healthcheck.deferred')).toEqual(
      Array(5).fill({ value: 1, attributes: { reason: 'lane_full' } }),
    );

    // One finishes; the lane takes the next suspect tick.
    probes.find('down-0').finish({
      outcome: 'fail',
      durationMs: 1000,
      errorKind: 'timeout',
    });
    await results[0];
    const next = run('down-3', probes.work('down-3'));
    expect(probes.startedIds()).toEqual([
      'down-0',
      'down-1',
      'down-2',
      'down-3',
    ]);
    expect(bulkhead.stats().inFlightByLane.suspect).toBe(3);
    expect(await run('down-4', neverAnswers)).toEqual({
      deferred: 'lane_full',
    });
    for (const id of ['down-1', 'down-2', 'down-3']) {
      probes
        .find(id)
        .finish({ outcome: 'fail', durationMs: 1000, errorKind: 'timeout' });
    }
    await Promise.all([...results, next]);
    expect(bulkhead.stats().inFlight).toBe(0);
  });

  it('runs a suspect slice single-flight', async () => {
    const { bulkhead, run, metrics } = setup();
    await makeSuspect(run, 'down');
    const probes = new HeldProbes();
    const first = run('down', probes.work('down'));
    expect(await run('down', neverAnswers)).toEqual({ deferred: 'in_flight' });
    expect(await run('down', neverAnswers)).toEqual({ deferred: 'in_flight' });
    expect(bulkhead.stats().deferrals.in_flight).toBe(2);
    expect(metrics.named('healthcheck.deferred')).toEqual([
      { value: 1, attributes: { reason: 'in_flight' } },
      { value: 1, attributes: { reason: 'in_flight' } },
    ]);

    probes
      .find('down')
      .finish({ outcome: 'fail', durationMs: 1000, errorKind: 'timeout' });
    await first;
    expect(laneOf(await run('down', neverAnswers))).toBe('suspect');
  });

  it('records nothing for a deferred tick', async () => {
    const { bulkhead, run } = setup();
    await makeSuspect(run, 'down');
    const probes = new HeldProbes();
    run('down', probes.work('down'));
    const before = bulkhead.classification('down');
    await run('down', neverAnswers);
    expect(bulkhead.classification('down')).toEqual(before);
    expect(bulkhead.stats().completions).toEqual({ normal: 4, suspect: 0 });
  });

  it('never lets healthy work wait behind suspect work', async () => {
    // Four slots, three of them taken by suspect probes.
    const { bulkhead, run } = setup({ concurrency: 4, laneCapacity: 3 });
    for (const id of ['down-1', 'down-2', 'down-3', 'down-4']) {
      await makeSuspect(run, id);
    }
    const probes = new HeldProbes();
    const suspects = ['down-1', 'down-2', 'down-3'].map(id =>
      run(id, probes.work(id)),
    );
    const healthy = ['up-1', 'up-2', 'up-3'].map(id =>
      run(id, probes.work(id)),
    );
    expect(probes.startedIds()).toEqual(['down-1', 'down-2', 'down-3', 'up-1']);
    expect(bulkhead.stats().queueLength).toBe(2);

    // A suspect slot frees: the waiting healthy run gets it, and a suspect
    // tick that arrives while healthy work waits is deferred, not queued.
    probes
      .find('down-1')
      .finish({ outcome: 'fail', durationMs: 1000, errorKind: 'timeout' });
    await suspects[0];
    expect(probes.startedIds()).toEqual([
      'down-1',
      'down-2',
      'down-3',
      'up-1',
      'up-2',
    ]);
    expect(await run('down-4', neverAnswers)).toEqual({ deferred: 'no_slot' });
    expect(bulkhead.stats()).toMatchObject({
      queueLength: 1,
      inFlightByLane: { normal: 2, suspect: 2 },
    });

    probes.find('up-1').finish({ outcome: 'pass', durationMs: 3 });
    await healthy[0];
    expect(probes.startedIds()).toContain('up-3');
    expect(bulkhead.stats().queueLength).toBe(0);
  });

  it('keeps healthy slices ungated while the lane is full', async () => {
    const { bulkhead, run } = setup({ concurrency: 10, laneCapacity: 3 });
    for (const id of ['down-1', 'down-2', 'down-3']) {
      await makeSuspect(run, id);
    }
    const probes = new HeldProbes();
    for (const id of ['down-1', 'down-2', 'down-3']) {
      run(id, probes.work(id));
    }
    const result = await run('up', passIn(4));
    expect(result).toMatchObject({
      lane: 'normal',
      timeoutMs: 5000,
      queueWaitMs: 0,
    });
    expect(bulkhead.stats().inFlightByLane.suspect).toBe(3);
  });

  it('adds up slot time and completions by lane', async () => {
    const { clock, bulkhead, run } = setup();
    await makeSuspect(run, 'down');
    const heldFor =
      (ms: number, summary: RunSummary): BulkheadWork =>
      async () => {
        clock.advance(ms);
        return summary;
      };
    await run('up', heldFor(30, { outcome: 'pass', durationMs: 30 }));
    await run(
      'down',
      heldFor(1000, {
        outcome: 'fail',
        durationMs: 1000,
        errorKind: 'timeout',
      }),
    );
    expect(bulkhead.stats()).toMatchObject({
      completions: { normal: 5, suspect: 1 },
      slotTimeMs: { normal: 30, suspect: 1000 },
    });
  });

  it('with gating off, runs every slice in the normal lane at its full timeout', async () => {
    const { bulkhead, run } = setup({ gateSuspectSlices: false });
    await makeSuspect(run, 'down');
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(await run('down', neverAnswers));
    }
    expect(
      results.map(r => (r.deferred ? r.deferred : `${r.lane} ${r.timeoutMs}`)),
    ).toEqual(['normal 5000', 'normal 5000', 'normal 5000']);
    expect(bulkhead.stats().deferrals).toEqual({
      in_flight: 0,
      lane_full: 0,
      no_slot: 0,
    });
  });

  it('frees the slot and records nothing when the work throws', async () => {
    const { bulkhead, run } = setup({ concurrency: 2, laneCapacity: 1 });
    await expect(
      run('a', async () => {
        throw new Error('executor bug');
      }),
    ).rejects.toThrow('executor bug');
    await expect(
      run('a', () => {
        throw new Error('synchronous bug');
      }),
    ).rejects.toThrow('synchronous bug');
    expect(bulkhead.stats()).toMatchObject({
      inFlight: 0,
      completions: { normal: 0, suspect: 0 },
    });
    expect(bulkhead.classification('a').baselineMs).toBeUndefined();
  });

  it('starts queued work when a running probe throws', async () => {
    const { run } = setup({ concurrency: 2, laneCapacity: 1 });
    const probes = new HeldProbes();
    let fail: (error: Error) => void = () => {};
    const failing = run('a', () => new Promise((_, reject) => (fail = reject)));
    run('b', probes.work('b'));
    run('c', probes.work('c'));
    expect(probes.startedIds()).toEqual(['b']);
    fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    expect(probes.startedIds()).toEqual(['b', 'c']);
  });

  it('takes a slice history from stored runs, newest first', async () => {
    const { bulkhead, run } = setup();
    const timedOut = {
      outcome: 'fail' as const,
      durationMs: 5000,
      errorKind: 'timeout' as const,
      timeoutMsUsed: 5000,
      fullTimeoutProbe: true,
    };
    bulkhead.prime('down', [
      timedOut,
      timedOut,
      timedOut,
      {
        outcome: 'pass',
        durationMs: 40,
        timeoutMsUsed: 5000,
        fullTimeoutProbe: true,
      },
    ]);
    expect(bulkhead.classification('down')).toEqual({
      suspect: true,
      slowFailureStreak: 3,
      shrunkRunsInARow: 0,
      baselineMs: 40,
    });
    const result = await run('down', neverAnswers);
    expect(result).toMatchObject({ lane: 'suspect', timeoutMs: 1000 });

    bulkhead.prime('down', [timedOut, timedOut]);
    expect(bulkhead.classification('down')).toMatchObject({
      suspect: false,
      baselineMs: undefined,
    });
  });

  it('forgets a cancelled slice', async () => {
    const { bulkhead, run } = setup();
    await makeSuspect(run, 'down');
    bulkhead.forget('down');
    expect(bulkhead.classification('down').suspect).toBe(false);
    expect(laneOf(await run('down', neverAnswers))).toBe('normal');
  });

  it('does not record the run of a slice forgotten while it ran', async () => {
    const { bulkhead, run } = setup();
    await makeSuspect(run, 'down');
    const probes = new HeldProbes();
    const running = run('down', probes.work('down'));
    bulkhead.forget('down');
    probes
      .find('down')
      .finish({ outcome: 'fail', durationMs: 1000, errorKind: 'timeout' });
    await running;
    expect(bulkhead.classification('down').slowFailureStreak).toBe(0);
  });

  it('rejects a malformed request', async () => {
    const { bulkhead } = setup();
    await expect(
      bulkhead.run({ sliceId: 'a', dueAt: 0, timeoutMs: 0 }, passIn(1)),
    ).rejects.toThrow('timeoutMs must be a positive number, got 0');
    await expect(
      bulkhead.run({ sliceId: 'a', dueAt: NaN, timeoutMs: 1000 }, passIn(1)),
    ).rejects.toThrow('dueAt must be epoch ms, got NaN');
  });
});

describe('Bulkhead, by endpoint', () => {
  const DEAD_HOST = 'http://10.0.0.7:8080';
  const LIVE_HOST = 'http://10.0.0.8:8080';

  function setupEndpoints(options: Partial<AdmissionOptions> = {}) {
    const clock = new FakeClock();
    const bulkhead = new Bulkhead(options, { clock });
    const run = (sliceId: string, endpointKey: string, work: BulkheadWork) =>
      bulkhead.run(
        { sliceId, endpointKey, dueAt: clock.nowMs, timeoutMs: TIMEOUT_MS },
        work,
      );
    return { clock, bulkhead, run };
  }

  const timedOut: RunSummary = {
    outcome: 'fail',
    durationMs: 5000,
    errorKind: 'timeout',
  };

  function describeResult(result: BulkheadResult): string {
    return result.deferred ?? `${result.lane} ${result.timeoutMs}`;
  }

  it('makes every slice of an endpoint suspect after K slow failures of any of its slices', async () => {
    const { bulkhead, run } = setupEndpoints();
    await run('check-1', DEAD_HOST, neverAnswers);
    await run('check-2', DEAD_HOST, neverAnswers);
    expect(bulkhead.endpointClassification(DEAD_HOST)).toEqual({
      suspect: false,
      slowFailureStreak: 2,
    });
    await run('check-3', DEAD_HOST, neverAnswers);
    expect(bulkhead.endpointClassification(DEAD_HOST)).toEqual({
      suspect: true,
      slowFailureStreak: 3,
    });

    // check-4 never ran, and check-1 failed only once: both are suspect now.
    expect(describeResult(await run('check-4', DEAD_HOST, neverAnswers))).toBe(
      'suspect 5000',
    );
    expect(bulkhead.classification('check-1').suspect).toBe(false);
    expect(describeResult(await run('check-1', DEAD_HOST, neverAnswers))).toBe(
      'suspect 5000',
    );
    // Another host is not involved.
    expect(describeResult(await run('check-5', LIVE_HOST, passIn(4)))).toBe(
      'normal 5000',
    );
  });

  it('runs a suspect endpoint single-flight across its slices, so a dead host holds one lane slot', async () => {
    const { bulkhead, run } = setupEndpoints({ concurrency: 10 });
    for (const id of ['check-1', 'check-2', 'check-3']) {
      await run(id, DEAD_HOST, neverAnswers);
    }
    const probes = new HeldProbes();
    const first = run('check-4', DEAD_HOST, probes.work('check-4'));
    const others = [];
    for (let i = 5; i <= 48; i++) {
      others.push(await run(`check-${i}`, DEAD_HOST, neverAnswers));
    }
    expect(probes.startedIds()).toEqual(['check-4']);
    expect(new Set(others.map(describeResult))).toEqual(new Set(['in_flight']));
    expect(bulkhead.stats()).toMatchObject({
      inFlightByLane: { normal: 0, suspect: 1 },
      deferrals: { in_flight: 44, lane_full: 0, no_slot: 0 },
    });

    probes.find('check-4').finish(timedOut);
    await first;
    expect(describeResult(await run('check-5', DEAD_HOST, neverAnswers))).toBe(
      'suspect 5000',
    );
  });

  it('shrinks the timeout of a slice of a suspect endpoint toward its own healthy baseline', async () => {
    const { run } = setupEndpoints();
    await run('check-1', DEAD_HOST, passIn(40));
    for (const id of ['check-2', 'check-3', 'check-4']) {
      await run(id, DEAD_HOST, neverAnswers);
    }
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(
        describeResult(await run('check-1', DEAD_HOST, neverAnswers)),
      );
    }
    // The 5th suspect run of check-1 is its recovery probe at the full timeout.
    expect(results).toEqual([
      'suspect 1000',
      'suspect 1000',
      'suspect 1000',
      'suspect 1000',
      'suspect 5000',
    ]);
  });

  it('keeps an endpoint suspect while its shrunk runs time out', async () => {
    const { bulkhead, run } = setupEndpoints();
    for (const id of ['check-1', 'check-2', 'check-3']) {
      await run(id, DEAD_HOST, passIn(40));
    }
    const timeouts: number[] = [];
    for (let i = 0; i < 12; i++) {
      const result = await run(`check-${1 + (i % 3)}`, DEAD_HOST, neverAnswers);
      timeouts.push(result.deferred ? 0 : result.timeoutMs);
    }
    expect(timeouts).toEqual([
      5000, 5000, 5000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
    ]);
    expect(bulkhead.endpointClassification(DEAD_HOST)).toEqual({
      suspect: true,
      // Each slice's first three failures count, shrunk or not; after that
      // a slice is suspect on its own runs and its failures are its own.
      slowFailureStreak: 9,
    });
  });

  it('sees recovery at every slice once one run on the endpoint passes', async () => {
    const { bulkhead, run } = setupEndpoints();
    for (const id of ['check-1', 'check-2', 'check-3']) {
      await run(id, DEAD_HOST, neverAnswers);
    }
    expect(describeResult(await run('check-1', DEAD_HOST, passIn(4)))).toBe(
      'suspect 5000',
    );
    expect(bulkhead.endpointClassification(DEAD_HOST).suspect).toBe(false);
    for (const id of ['check-2', 'check-3', 'check-4']) {
      expect(describeResult(await run(id, DEAD_HOST, passIn(4)))).toBe(
        'normal 5000',
      );
    }
  });

  it('judges a path that hangs on a live host on its own, without gating the host', async () => {
    const { bulkhead, run } = setupEndpoints();
    // /slow-report hangs; /health on the same host answers in 4 ms.
    for (let i = 0; i < 3; i++) {
      await run('slow-report', LIVE_HOST, neverAnswers);
      await run('health', LIVE_HOST, passIn(4));
    }
    expect(bulkhead.classification('slow-report').suspect).toBe(true);

    // The hanging path alone, back to back: its failures are its own.
    const hanging = [];
    for (let i = 0; i < 4; i++) {
      hanging.push(
        describeResult(await run('slow-report', LIVE_HOST, neverAnswers)),
      );
    }
    expect(hanging).toEqual(Array(4).fill('suspect 5000'));
    expect(bulkhead.endpointClassification(LIVE_HOST).suspect).toBe(false);

    // Single-flight per slice, not per host: /health is never gated.
    const probes = new HeldProbes();
    run('slow-report', LIVE_HOST, probes.work('slow-report'));
    expect(describeResult(await run('health', LIVE_HOST, passIn(4)))).toBe(
      'normal 5000',
    );
    expect(
      describeResult(await run('slow-report', LIVE_HOST, neverAnswers)),
    ).toBe('in_flight');
  });

  it('defers queued runs whose endpoint turned suspect while they waited, instead of pinning a slot', async () => {
    const { bulkhead, run } = setupEndpoints({
      concurrency: 4,
      laneCapacity: 1,
      endpointShare: 4,
    });
    await run('check-1', DEAD_HOST, neverAnswers);
    await run('check-2', DEAD_HOST, neverAnswers);

    const probes = new HeldProbes();
    const running = [
      run('check-3', DEAD_HOST, probes.work('check-3')),
      run('up-1', LIVE_HOST, probes.work('up-1')),
      run('up-2', LIVE_HOST, probes.work('up-2')),
      run('up-3', LIVE_HOST, probes.work('up-3')),
    ];
    const waiting = [
      run('check-4', DEAD_HOST, probes.work('check-4')),
      run('check-5', DEAD_HOST, probes.work('check-5')),
      run('up-4', LIVE_HOST, probes.work('up-4')),
    ];
    expect(bulkhead.stats().queueLength).toBe(3);

    // The third failure in a row: the host is suspect, and the two runs of
    // its slices that queued before anyone knew leave without a slot.
    probes.find('check-3').finish(timedOut);
    await running[0];
    expect(await waiting[0]).toEqual({ deferred: 'in_flight' });
    expect(await waiting[1]).toEqual({ deferred: 'no_slot' });
    expect(probes.startedIds()).toEqual([
      'check-3',
      'up-1',
      'up-2',
      'up-3',
      'up-4',
    ]);
    expect(bulkhead.stats()).toMatchObject({
      queueLength: 0,
      inFlightByLane: { normal: 4, suspect: 0 },
    });
  });

  it('keeps slots for other endpoints while one endpoint holds more than its share', async () => {
    const { clock, bulkhead, run } = setupEndpoints({
      concurrency: 5,
      laneCapacity: 1,
      endpointShare: 2,
    });
    const probes = new HeldProbes();
    const unknown = ['new-1', 'new-2', 'new-3', 'new-4'].map(id => ({
      id,
      result: run(id, DEAD_HOST, probes.work(id)),
    }));
    // Two always, a third because two stay free; the fourth waits.
    expect(probes.startedIds()).toEqual(['new-1', 'new-2', 'new-3']);
    expect(bulkhead.stats().queueLength).toBe(1);

    const healthy = run('up-1', LIVE_HOST, probes.work('up-1'));
    run('up-2', LIVE_HOST, probes.work('up-2'));
    expect(probes.startedIds()).toContain('up-2');

    // A slot frees, and stays free for other endpoints: new-4 still waits.
    clock.advance(3);
    probes.find('up-1').finish({ outcome: 'pass', durationMs: 3 });
    await healthy;
    expect(probes.startedIds()).not.toContain('new-4');
    expect(await run('up-3', LIVE_HOST, passIn(3))).toMatchObject({
      lane: 'normal',
      queueWaitMs: 0,
    });

    // The dead host's runs are never deferred for this, only delayed: once
    // it is back within its share, new-4 starts at its full timeout.
    probes.find('new-1').finish(timedOut);
    await unknown[0].result;
    expect(probes.startedIds()).not.toContain('new-4');
    probes.find('new-2').finish(timedOut);
    await unknown[1].result;
    expect(probes.find('new-4').timeoutMs).toBe(5000);
  });

  it('lets one endpoint use all but its share of slots when it is alone', async () => {
    const { bulkhead, run } = setupEndpoints({
      concurrency: 10,
      endpointShare: 3,
    });
    const probes = new HeldProbes();
    for (let i = 1; i <= 9; i++) {
      run(`busy-${i}`, LIVE_HOST, probes.work(`busy-${i}`));
    }
    expect(probes.started).toHaveLength(7);
    expect(bulkhead.stats()).toMatchObject({ inFlight: 7, queueLength: 2 });
  });

  it('with gating off, ignores endpoints and their share', async () => {
    const { bulkhead, run } = setupEndpoints({
      concurrency: 4,
      laneCapacity: 1,
      endpointShare: 1,
      gateSuspectSlices: false,
    });
    for (let i = 1; i <= 4; i++) {
      await run(`check-${i}`, DEAD_HOST, neverAnswers);
    }
    const probes = new HeldProbes();
    for (let i = 1; i <= 4; i++) {
      run(`check-${i}`, DEAD_HOST, probes.work(`check-${i}`));
    }
    expect(probes.started.map(p => p.timeoutMs)).toEqual([
      5000, 5000, 5000, 5000,
    ]);
    expect(bulkhead.stats().inFlightByLane).toEqual({ normal: 4, suspect: 0 });
  });

  it('moves a slice to its new endpoint when its target changes, and drops endpoints no slice uses', async () => {
    const { bulkhead, run } = setupEndpoints();
    await run('check-1', DEAD_HOST, neverAnswers);
    await run('check-2', DEAD_HOST, neverAnswers);
    expect(bulkhead.stats()).toMatchObject({
      trackedSlices: 2,
      trackedEndpoints: 1,
    });

    await run('check-1', LIVE_HOST, passIn(4));
    expect(bulkhead.stats().trackedEndpoints).toBe(2);
    bulkhead.forget('check-2');
    expect(bulkhead.stats()).toMatchObject({
      trackedSlices: 1,
      trackedEndpoints: 1,
    });
    expect(bulkhead.endpointClassification(DEAD_HOST).slowFailureStreak).toBe(
      0,
    );
  });

  it('keeps an endpoint until the run of a slice forgotten while it ran ends', async () => {
    const { bulkhead, run } = setupEndpoints();
    const probes = new HeldProbes();
    const running = run('check-1', DEAD_HOST, probes.work('check-1'));
    bulkhead.forget('check-1');
    expect(bulkhead.stats().trackedEndpoints).toBe(1);
    probes.find('check-1').finish(timedOut);
    await running;
    expect(bulkhead.stats()).toMatchObject({
      trackedSlices: 0,
      trackedEndpoints: 0,
    });
  });
});
