import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { runProbeWithDeadline } from './probeRun';

const secrets = new ProbeSecrets({ TOKEN: 'tok-123' });
const context = (timeoutMs: number, signal = new AbortController().signal) => ({
  timeoutMs,
  signal,
});

describe('runProbeWithDeadline', () => {
  it('returns what the work found, with the duration and total time', async () => {
    const result = await runProbeWithDeadline(
      context(1000),
      secrets,
      async () => ({
        ok: true,
        status: 204,
        timings: { connect: 1 },
      }),
    );

    expect(result).toEqual({
      ok: true,
      status: 204,
      durationMs: expect.any(Number),
      timings: { connect: 1, total: result.durationMs },
    });
  });

  it('answers at the deadline with the phase and what was seen, and aborts the work', async () => {
    let workSignal: AbortSignal | undefined;

    const result = await runProbeWithDeadline(
      context(50),
      secrets,
      (signal, progress) => {
        workSignal = signal;
        progress.partial.connected = true;
        progress.phase = 'while waiting for the greeting';
        return new Promise(() => {});
      },
    );

    expect(result).toEqual({
      ok: false,
      connected: true,
      durationMs: expect.any(Number),
      error: {
        kind: 'timeout',
        message: 'Timed out after 50 ms while waiting for the greeting',
      },
    });
    // Node's timers count whole ms from the loop's clock, which can lag
    // performance.now() by under a millisecond (49.74 ms was measured).
    expect(result.durationMs).toBeGreaterThanOrEqual(49);
    // The work is told to wind down right after the answer.
    await new Promise(resolve => setImmediate(resolve));
    expect(workSignal?.aborted).toBe(true);
    expect(workSignal?.reason).toMatchObject({ name: 'AbortError' });
  });

  it('leaves the signal of finished work alone: the work released what it held before it returned', async () => {
    let workSignal: AbortSignal | undefined;
    const told: unknown[] = [];

    await runProbeWithDeadline(context(1000), secrets, async signal => {
      workSignal = signal;
      signal.addEventListener('abort', () => told.push(signal.reason));
      return { ok: true, status: 200 };
    });
    await new Promise(resolve => setImmediate(resolve));

    expect(workSignal?.aborted).toBe(false);
    expect(told).toEqual([]);
  });

  it('turns a thrown error into a failed result of its kind', async () => {
    const refused = Object.assign(
      new Error('connect ECONNREFUSED 10.0.0.1:80'),
      {
        code: 'ECONNREFUSED',
      },
    );

    const asynchronous = await runProbeWithDeadline(
      context(1000),
      secrets,
      async () => {
        throw refused;
      },
    );
    const synchronous = await runProbeWithDeadline(
      context(1000),
      secrets,
      () => {
        throw refused;
      },
    );

    for (const result of [asynchronous, synchronous]) {
      expect(result.error).toEqual({
        kind: 'refused',
        message: 'connect ECONNREFUSED 10.0.0.1:80',
      });
    }
  });

  it('does not start work whose signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const work = jest.fn();

    const result = await runProbeWithDeadline(
      context(1000, controller.signal),
      secrets,
      work,
    );

    expect(work).not.toHaveBeenCalled();
    expect(result.error).toEqual({
      kind: 'other',
      message: 'Probe aborted starting: shutting down',
    });
  });

  it('redacts secret values from everything it returns', async () => {
    const result = await runProbeWithDeadline(
      context(1000),
      secrets,
      async () => {
        throw new Error('server rejected token tok-123');
      },
    );

    expect(result.error?.message).toBe('server rejected token ***');
  });
});
