import { stoppedProbe, TickNotJudged } from './notJudged';

describe('stoppedProbe', () => {
  const timedOut = {
    ok: false,
    error: { kind: 'timeout' as const, message: 'Timed out after 30000 ms' },
  };

  it('is not judged when the probe failed after the instance began to stop', () => {
    const notJudged = stoppedProbe(timedOut, true);
    expect(notJudged).toBeInstanceOf(TickNotJudged);
    expect(notJudged).toMatchObject({
      reason: 'stopping',
      message:
        'The instance stopped while the probe ran (Timed out after 30000 ms)',
    });
  });

  it('is judged when the probe failed before the stop: the target failed it', () => {
    expect(stoppedProbe(timedOut, false)).toBeUndefined();
  });

  it('is judged when the probe succeeded, stop or not', () => {
    expect(stoppedProbe({ ok: true }, true)).toBeUndefined();
  });
});
