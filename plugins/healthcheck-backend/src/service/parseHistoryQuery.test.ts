import { parseHistoryQuery } from './parseHistoryQuery';

describe('parseHistoryQuery', () => {
  const now = Date.UTC(2026, 10, 1, 12);

  it('reads the last 24 hours by default, and from, to, limit and cursor when given', () => {
    expect(parseHistoryQuery({}, now)).toEqual({
      from: now - 24 * 60 * 60_000,
      to: now,
      limit: undefined,
      cursor: undefined,
    });
    expect(
      parseHistoryQuery(
        {
          from: '2026-11-01T00:00:00Z',
          to: String(Date.UTC(2026, 10, 1, 6)),
          limit: '20',
          cursor: 'abc',
        },
        now,
      ),
    ).toEqual({
      from: Date.UTC(2026, 10, 1),
      to: Date.UTC(2026, 10, 1, 6),
      limit: 20,
      cursor: 'abc',
    });
  });

  it('takes the extra keys a route allows', () => {
    expect(
      parseHistoryQuery({ granularity: 'days' }, now, ['granularity']).to,
    ).toBe(now);
  });

  it('names every problem in one error', () => {
    expect(() =>
      parseHistoryQuery(
        { from: 'yesterday', to: '2026-10-01T00:00:00Z', limit: '0', x: '1' },
        now,
      ),
    ).toThrow(
      "Invalid query: x: unknown parameter (known: from, to, limit, cursor); from: 'yesterday' is neither an ISO 8601 time nor epoch ms; limit: '0' is not a whole number from 1 to 1000",
    );
    expect(() =>
      parseHistoryQuery({ from: String(now), to: String(now - 1) }, now),
    ).toThrow('Invalid query: from: must be before to');
  });
});
