import { parseUptimeQuery } from './parseUptimeQuery';

describe('parseUptimeQuery', () => {
  const now = Date.UTC(2026, 10, 1, 12);

  it('ends the windows now by default, at `to` when given, and never later than now', () => {
    expect(parseUptimeQuery({}, now)).toEqual({ to: now });
    expect(parseUptimeQuery({ to: '2026-11-01T10:00:00Z' }, now)).toEqual({
      to: Date.UTC(2026, 10, 1, 10),
    });
    expect(parseUptimeQuery({ to: String(now + 60_000) }, now)).toEqual({
      to: now,
    });
  });

  it('names every problem', () => {
    expect(() =>
      parseUptimeQuery({ to: ['1', '2'], window: '7d' }, now),
    ).toThrow(
      'Invalid query: to: give it once, as text; window: unknown parameter (known: to)',
    );
  });
});
