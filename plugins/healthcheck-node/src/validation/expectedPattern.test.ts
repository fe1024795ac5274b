import {
  ExpectedPatternWatcher,
  expectedPatternProblem,
  parseExpectedPattern,
} from './expectedPattern';

describe('parseExpectedPattern', () => {
  it('matches a plain pattern as a substring, regex characters and all', () => {
    const pattern = parseExpectedPattern('+OK (ready)');
    expect(pattern.kind).toBe('substring');
    expect(pattern.test('abc +OK (ready) def')).toBe(true);
    expect(pattern.test('+OK ready')).toBe(false);
  });

  it('matches /pattern/flags as a regular expression, with the i, m and s flags', () => {
    const pattern = parseExpectedPattern('/^hello \\d+$/im');
    expect(pattern.kind).toBe('regex');
    expect(pattern.test('x\nHELLO 42\ny')).toBe(true);
    expect(pattern.test('hello world')).toBe(false);
    expect(parseExpectedPattern('/a.b/s').test('a\nb')).toBe(true);
    expect(parseExpectedPattern('/a.b/').test('a\nb')).toBe(false);
  });

  it('ignores the g, y, u and d flags, which change nothing for one test', () => {
    const pattern = parseExpectedPattern('/ok/gyud');
    expect(pattern.test('ok')).toBe(true);
    expect(pattern.test('ok')).toBe(true);
  });

  it('answers a catastrophic-backtracking pattern in linear time', () => {
    // JavaScript's engine takes minutes on this; RE2 has no backtracking.
    const pattern = parseExpectedPattern('/^(\\w+\\s?)*$/');
    const answer = `${'a'.repeat(64 * 1024)}!`;
    const started = performance.now();
    expect(pattern.test(answer)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it.each([
    ['/[a-/', "is not a valid regular expression in RE2's linear-time syntax"],
    [
      '/(a)\\1/',
      "is not a valid regular expression in RE2's linear-time syntax",
    ],
    [
      '/(?=a)b/',
      "is not a valid regular expression in RE2's linear-time syntax",
    ],
    ['/ok/x', "has the unknown flag 'x'; use i, m or s"],
  ])('refuses %s: %s', (expect_, reason) => {
    expect(() => parseExpectedPattern(expect_)).toThrow(reason);
    expect(expectedPatternProblem(expect_)).toContain(reason);
  });

  it('finds no problem in a pattern that compiles', () => {
    expect(expectedPatternProblem('/^\\+PONG/')).toBeUndefined();
    expect(expectedPatternProblem('SSH-2.0')).toBeUndefined();
  });
});

describe('ExpectedPatternWatcher', () => {
  function watch(expect_: string, now = () => 0) {
    const onMatch = jest.fn();
    const pattern = parseExpectedPattern(expect_);
    const scans = jest.spyOn(pattern, 'test');
    const watcher = new ExpectedPatternWatcher({ pattern, onMatch, now });
    return { watcher, onMatch, scans };
  }

  it('finds a substring split across pieces, reading each piece once', () => {
    const { watcher, onMatch, scans } = watch('+PONG');
    for (const piece of ['xx+P', 'O', 'NG\r\n']) {
      watcher.append(piece);
    }
    expect(onMatch).toHaveBeenCalledTimes(1);
    expect(watcher.text).toBe('xx+PONG\r\n');
    // The substring search looks at new text only, never the whole answer.
    expect(scans).not.toHaveBeenCalled();
  });

  it('does not match a substring that is not there, however it is split', () => {
    const { watcher, onMatch } = watch('abc');
    for (const piece of ['a', 'b', 'x', 'c', 'ab']) {
      watcher.append(piece);
    }
    expect(watcher.finish()).toBe(false);
    expect(onMatch).not.toHaveBeenCalled();
  });

  it('scans a short answer for a regular expression at every piece', () => {
    const { watcher, onMatch, scans } = watch('/^\\+OK\\b/');
    watcher.append('+O');
    watcher.append('K ready');
    expect(scans).toHaveBeenCalledTimes(2);
    expect(onMatch).toHaveBeenCalledTimes(1);
  });

  it('rescans a long answer at most once per gap, however many bytes trickle in', () => {
    jest.useFakeTimers();
    try {
      let clock = 0;
      const { watcher, onMatch, scans } = watch('/READY$/', () => clock);
      watcher.append('x'.repeat(5000));
      expect(scans).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 1000; i++) {
        clock += 0.01;
        watcher.append('y');
      }
      // A thousand bytes within 10 ms: no rescan yet, one waiting.
      expect(scans).toHaveBeenCalledTimes(1);
      watcher.append('READY');
      clock += 25;
      jest.advanceTimersByTime(25);
      expect(scans).toHaveBeenCalledTimes(2);
      expect(onMatch).toHaveBeenCalledTimes(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('scans what is left when the answer ends, and stops its timer', () => {
    jest.useFakeTimers();
    try {
      let clock = 0;
      const { watcher, onMatch } = watch('/DONE/', () => clock);
      watcher.append('x'.repeat(5000));
      clock += 1;
      watcher.append('DONE');
      expect(onMatch).not.toHaveBeenCalled();
      expect(watcher.finish()).toBe(true);
      expect(onMatch).toHaveBeenCalledTimes(1);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
