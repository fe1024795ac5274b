import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { systemClock } from './clock';

describe('systemClock', () => {
  it('reads the wall clock, which all instances share', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('runs a zero-delay timer set from a timer callback on the next turn, not when something else wakes the loop', () => {
    // In a bare process, as in production: Jest's own activity keeps the
    // loop spinning and would hide a late immediate. The driver re-arms from
    // inside its timer callback, where an unref'd immediate would wait in
    // poll for the next timer.
    const script = `
      import { systemClock } from ${JSON.stringify(
        join(__dirname, 'clock.ts'),
      )};
      setTimeout(() => {
        const armedAt = performance.now();
        const nextTimer = setTimeout(() => {}, 1000);
        systemClock.setTimer(() => {
          clearTimeout(nextTimer);
          const late = performance.now() - armedAt >= 1000;
          console.log(late ? 'waited for the next timer' : 'next turn');
        }, 0);
      }, 1);
    `;
    const output = execFileSync(
      process.execPath,
      [
        '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
        '--input-type=module',
        '--eval',
        script,
      ],
      { encoding: 'utf8' },
    );
    expect(output.trim()).toBe('next turn');
  });

  it('does not keep the process alive for a pending delay', () => {
    const handle = systemClock.setTimer(() => {}, 60_000);
    expect((handle as ReturnType<typeof setTimeout>).hasRef()).toBe(false);
    systemClock.clearTimer(handle);
  });

  it('cancels both kinds of timer', async () => {
    const fired: number[] = [];
    systemClock.clearTimer(systemClock.setTimer(() => fired.push(0), 0));
    systemClock.clearTimer(systemClock.setTimer(() => fired.push(5), 5));
    await new Promise(resolve => setTimeout(resolve, 30));
    expect(fired).toEqual([]);
  });
});
