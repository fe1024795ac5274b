import { formatRelative } from './relativeTime';

describe('formatRelative', () => {
  const now = Date.UTC(2026, 10, 1, 12);

  it.each`
    offsetMs       | text
    ${-180_000}    | ${'3 minutes ago'}
    ${-86_400_000} | ${'yesterday'}
    ${5_000}       | ${'in 5 seconds'}
    ${-200}        | ${'now'}
    ${-7_200_000}  | ${'2 hours ago'}
  `('says $text of a time $offsetMs ms away', ({ offsetMs, text }) => {
    expect(formatRelative(now + offsetMs, now)).toBe(text);
    expect(formatRelative(new Date(now + offsetMs).toISOString(), now)).toBe(
      text,
    );
  });

  it('says never without a time or with one that is not a date', () => {
    expect(formatRelative(undefined, now)).toBe('never');
    expect(formatRelative('not a date', now)).toBe('never');
  });
});
