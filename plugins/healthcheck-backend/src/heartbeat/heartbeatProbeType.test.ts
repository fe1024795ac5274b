import { TickNotJudged } from '../runs/notJudged';
import { heartbeatTargetOf } from '../reconciler/heartbeatTargets';
import { createHeartbeatProbeType } from './heartbeatProbeType';
import type { HeartbeatSlice } from './DatabaseHeartbeatStore';
import type { DeafSpan } from './heartbeatDeadline';

describe('the heartbeat probe type', () => {
  const NOW = 1_800_000_000_000;
  const pinged: HeartbeatSlice = {
    sliceId: 's1',
    checkId: 'export',
    tokenHint: '…abcd',
    armedAt: NOW - 600_000,
    lastPingAt: NOW - 100_000,
  };
  // Every minute, 30 s of grace: due by NOW - 10 s.
  const config = { period: '1m', grace: '30s' };

  function probeWith(
    read: () => Promise<HeartbeatSlice | undefined>,
    spans: DeafSpan[] = [],
  ) {
    const deafSpans = {
      deaf: jest.fn(),
      heard: jest.fn(),
      spans: () => spans,
    };
    const probe = createHeartbeatProbeType({
      store: { read },
      deafSpans,
      now: () => NOW,
    });
    const run = (signal = new AbortController().signal) =>
      probe.run({
        target: heartbeatTargetOf('s1'),
        config,
        timeoutMs: 5_000,
        signal,
      });
    return { run, deafSpans };
  }

  it('fails a job whose ping is past its deadline', async () => {
    const { run, deafSpans } = probeWith(async () => pinged);
    expect(await run()).toMatchObject({
      ok: false,
      error: { kind: 'timeout' },
    });
    expect(deafSpans.heard).toHaveBeenCalledWith(NOW);
  });

  it('waits longer by the time Vigil could not hear pings', async () => {
    const { run } = probeWith(
      async () => pinged,
      [{ from: NOW - 60_000, to: NOW - 30_000 }],
    );
    expect(await run()).toMatchObject({ ok: true });
  });

  it('does not judge a tick whose read of the last pings fails, and says Vigil could not hear', async () => {
    const { run, deafSpans } = probeWith(async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    });
    const notJudged = await run().catch(error => error);
    expect(notJudged).toBeInstanceOf(TickNotJudged);
    expect(notJudged).toMatchObject({
      reason: 'database',
      message:
        'Could not read the last pings: Error: connect ECONNREFUSED 127.0.0.1:5432',
    });
    expect(deafSpans.deaf).toHaveBeenCalledWith(NOW);
  });

  it('does not judge a missed deadline within 30 s of a slow read, and judges it after', async () => {
    let clock = NOW;
    let readMs = 800;
    const probe = createHeartbeatProbeType({
      store: {
        read: async () => {
          clock += readMs;
          return pinged;
        },
      },
      now: () => clock,
    });
    const run = () =>
      probe.run({
        target: heartbeatTargetOf('s1'),
        config,
        timeoutMs: 5_000,
        signal: new AbortController().signal,
      });

    await expect(run()).rejects.toThrow(TickNotJudged);
    readMs = 5; // the database answers quickly again
    clock += 20_000;
    await expect(run()).rejects.toThrow(TickNotJudged);
    clock += 11_000;
    expect(await run()).toMatchObject({
      ok: false,
      error: { kind: 'timeout' },
    });
  });

  it('judges a job that pings on time whatever the database did', async () => {
    let clock = NOW;
    const probe = createHeartbeatProbeType({
      store: {
        read: async () => {
          clock += 800;
          return { ...pinged, lastPingAt: NOW - 5_000 };
        },
      },
      now: () => clock,
    });
    expect(
      await probe.run({
        target: heartbeatTargetOf('s1'),
        config,
        timeoutMs: 5_000,
        signal: new AbortController().signal,
      }),
    ).toMatchObject({ ok: true });
  });

  it('does not judge a tick whose read does not answer in time', async () => {
    const { run } = probeWith(() => new Promise(() => {}));
    const timeout = new AbortController();
    const running = run(timeout.signal);
    timeout.abort(new DOMException('5000 ms have passed', 'TimeoutError'));
    await expect(running).rejects.toMatchObject({ reason: 'database' });
  });

  it('does not judge a tick the instance stopped as it read', async () => {
    const { run, deafSpans } = probeWith(() => new Promise(() => {}));
    const shutdown = new AbortController();
    const running = run(shutdown.signal);
    shutdown.abort();
    await expect(running).rejects.toMatchObject({ reason: 'stopping' });
    expect(deafSpans.deaf).not.toHaveBeenCalled();
  });
});
