import {
  extendedByDeafness,
  heartbeatDeadline,
  mergedSpans,
  observeHeartbeat,
} from './heartbeatDeadline';

const at = (iso: string) => Date.parse(iso);

describe('heartbeatDeadline', () => {
  it('is the last ping plus period plus grace', () => {
    expect(
      heartbeatDeadline(
        { periodMs: 3_600_000, graceMs: 300_000, timezone: 'UTC' },
        at('2026-03-01T10:00:00Z'),
      ),
    ).toBe(at('2026-03-01T11:05:00Z'));
  });

  it('is the next occurrence of the schedule in its time zone plus grace', () => {
    const daily3am = {
      schedule: '0 3 * * *',
      timezone: 'Europe/Paris',
      graceMs: 1_800_000,
    };
    // 03:00 in Paris is 02:00 UTC in winter...
    expect(heartbeatDeadline(daily3am, at('2026-01-10T02:10:00Z'))).toBe(
      at('2026-01-11T02:30:00Z'),
    );
    // ...and 01:00 UTC in summer, after the clocks went forward on 29 March.
    expect(heartbeatDeadline(daily3am, at('2026-03-29T00:30:00Z'))).toBe(
      at('2026-03-29T01:30:00Z'),
    );
    // A ping just after an occurrence is due at the next one.
    expect(heartbeatDeadline(daily3am, at('2026-07-01T01:00:00Z'))).toBe(
      at('2026-07-02T01:30:00Z'),
    );
  });

  it('is never for a schedule that does not occur within 400 days', () => {
    // 29 February: the next is in 2028.
    expect(
      heartbeatDeadline(
        { schedule: '0 0 29 2 *', timezone: 'UTC', graceMs: 0 },
        at('2026-03-01T00:00:00Z'),
      ),
    ).toBe(Infinity);
  });
});

describe('mergedSpans', () => {
  it('makes the same outage, as each instance reports it, one span, in order', () => {
    expect(
      mergedSpans([
        { from: 500, to: 600 },
        { from: 100, to: 300 },
        { from: 200, to: 400 },
        { from: 400, to: 450 },
        { from: 700, to: 700 },
      ]),
    ).toEqual([
      { from: 100, to: 450 },
      { from: 500, to: 600 },
    ]);
  });
});

describe('extendedByDeafness', () => {
  const since = 1_000_000;
  const deadline = since + 90_000;

  it('is the deadline when Vigil heard throughout', () => {
    expect(extendedByDeafness(deadline, since, [])).toBe(deadline);
  });

  it('moves the deadline by a span when Vigil could not hear, inside the wait', () => {
    expect(
      extendedByDeafness(deadline, since, [
        { from: since + 10_000, to: since + 40_000 },
      ]),
    ).toBe(deadline + 30_000);
  });

  it('counts only the part of a span after the last ping', () => {
    expect(
      extendedByDeafness(deadline, since, [
        { from: since - 50_000, to: since + 5_000 },
      ]),
    ).toBe(deadline + 5_000);
  });

  it('ignores a span after the deadline, and one that ended before the last ping', () => {
    expect(
      extendedByDeafness(deadline, since, [
        { from: deadline, to: deadline + 60_000 },
        { from: since - 60_000, to: since - 1 },
      ]),
    ).toBe(deadline);
  });

  it('counts a span that begins after the deadline but before the deadline it was moved to', () => {
    // 30 s deaf in the wait moves the deadline past the start of a later
    // 2-minute failover, which moves it again.
    expect(
      extendedByDeafness(deadline, since, [
        { from: deadline + 20_000, to: deadline + 140_000 },
        { from: since + 10_000, to: since + 40_000 },
      ]),
    ).toBe(deadline + 30_000 + 120_000);
  });

  it('counts overlapping spans once, as several instances report one outage', () => {
    expect(
      extendedByDeafness(deadline, since, [
        { from: since + 10_000, to: since + 40_000 },
        { from: since + 20_000, to: since + 50_000 },
        { from: since + 25_000, to: since + 30_000 },
      ]),
    ).toBe(deadline + 40_000);
  });

  it('leaves a deadline that never comes as it is', () => {
    expect(
      extendedByDeafness(Infinity, since, [{ from: since, to: since + 1 }]),
    ).toBe(Infinity);
  });
});

describe('heartbeatDeadline, with time Vigil could not hear', () => {
  it('moves a period deadline by a database outage during the wait', () => {
    const since = at('2026-03-01T10:00:00Z');
    expect(
      heartbeatDeadline(
        { periodMs: 3_600_000, graceMs: 300_000, timezone: 'UTC' },
        since,
        [{ from: at('2026-03-01T10:30:00Z'), to: at('2026-03-01T10:32:00Z') }],
      ),
    ).toBe(at('2026-03-01T11:07:00Z'));
  });

  it('moves a schedule deadline by the time no instance ran across the occurrence', () => {
    const daily3am = { schedule: '0 3 * * *', timezone: 'UTC', graceMs: 0 };
    expect(
      heartbeatDeadline(daily3am, at('2026-01-10T03:00:30Z'), [
        { from: at('2026-01-11T02:55:00Z'), to: at('2026-01-11T03:05:00Z') },
      ]),
    ).toBe(at('2026-01-11T03:10:00Z'));
  });
});

describe('observeHeartbeat', () => {
  const timing = { periodMs: 60_000, graceMs: 30_000, timezone: 'UTC' };
  const armedAt = at('2026-03-01T10:00:00Z');

  it('is ok until the deadline, with the last run duration as response time', () => {
    const signals = {
      armedAt,
      lastPingAt: armedAt + 60_000,
      lastDurationMs: 4_200,
    };
    expect(observeHeartbeat(signals, timing, armedAt + 150_000)).toEqual({
      ok: true,
      durationMs: 4_200,
    });
    expect(observeHeartbeat(signals, timing, armedAt + 150_001)).toEqual({
      ok: false,
      durationMs: 0,
      error: {
        kind: 'timeout',
        message:
          'No ping since 2026-03-01T10:01:00.000Z; one was due by 2026-03-01T10:02:30.000Z (grace included)',
      },
    });
  });

  it('counts the first deadline from when the ping URL was made', () => {
    expect(observeHeartbeat({ armedAt }, timing, armedAt + 90_000).ok).toBe(
      true,
    );
    expect(
      observeHeartbeat({ armedAt }, timing, armedAt + 90_001).error?.message,
    ).toBe(
      'No ping since the ping URL was made at 2026-03-01T10:00:00.000Z; one was due by 2026-03-01T10:01:30.000Z (grace included)',
    );
  });

  it('fails with the job’s message after a failure ping, until the next success', () => {
    const failed = {
      armedAt,
      lastPingAt: armedAt + 1_000,
      lastFailAt: armedAt + 2_000,
      lastMessage: 'disk full',
    };
    expect(observeHeartbeat(failed, timing, armedAt + 3_000)).toEqual({
      ok: false,
      durationMs: 0,
      error: {
        kind: 'other',
        message:
          'The job reported a failure at 2026-03-01T10:00:02.000Z: disk full',
      },
    });
    expect(
      observeHeartbeat(
        { ...failed, lastPingAt: armedAt + 4_000, lastMessage: 'ok' },
        timing,
        armedAt + 5_000,
      ),
    ).toEqual({ ok: true, durationMs: 0, body: 'ok' });
  });

  it('does not fail a job whose ping came while Vigil could not hear, and says how long it waited more when it does', () => {
    const signals = { armedAt, lastPingAt: armedAt };
    const failover = [{ from: armedAt + 60_000, to: armedAt + 120_000 }];
    expect(
      observeHeartbeat(signals, timing, armedAt + 120_000, failover).ok,
    ).toBe(true);
    expect(
      observeHeartbeat(signals, timing, armedAt + 150_001, failover).error
        ?.message,
    ).toBe(
      'No ping since 2026-03-01T10:00:00.000Z; one was due by 2026-03-01T10:02:30.000Z (grace included, and 60 s when Vigil could not hear pings)',
    );
  });
});
