import { mockServices } from '@backstage/backend-test-utils';
import { FakeClock } from './__testUtils__/FakeClock';
import { SliceRefresher } from './SliceRefresher';
import type { ScheduledSlice, SliceChange } from './types';

const T0 = 1_767_225_600_000;
const FLEET: ScheduledSlice[] = [{ id: 'a', intervalMs: 1_000 }];

function setup(load: () => Promise<ReadonlyArray<ScheduledSlice>>) {
  const clock = new FakeClock(T0);
  const submitted: SliceChange[] = [];
  const loader = new SliceRefresher({
    load,
    submit: async change => {
      submitted.push(change);
    },
    clock,
    logger: mockServices.logger.mock(),
  });
  return { clock, loader, submitted };
}

describe('SliceRefresher', () => {
  it('submits the full desired set at start and every 60 s by default', async () => {
    const { clock, loader, submitted } = setup(async () => FLEET);
    loader.start();
    await clock.advance(120_000);
    expect(submitted).toEqual([
      { type: 'replace', slices: FLEET },
      { type: 'replace', slices: FLEET },
      { type: 'replace', slices: FLEET },
    ]);
  });

  it('submits nothing on failure, retries after 30 s then 60 s by default, and resets after a success', async () => {
    let failures = 2;
    const { clock, loader, submitted } = setup(async () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('catalog unavailable');
      }
      return FLEET;
    });
    loader.start();
    await clock.advance(0);
    expect(loader.consecutiveFailures).toBe(1);
    await clock.advance(30_000);
    expect(loader.consecutiveFailures).toBe(2);
    expect(submitted).toHaveLength(0);
    await clock.advance(60_000);
    expect(loader.consecutiveFailures).toBe(0);
    expect(submitted).toHaveLength(1);
  });

  it('drops the result of a load that finishes after stop, and leaves no timer', async () => {
    let finish: (slices: ScheduledSlice[]) => void = () => {};
    const { clock, loader, submitted } = setup(
      () => new Promise(resolve => (finish = resolve)),
    );
    loader.start();
    loader.stop();
    finish(FLEET);
    await clock.advance(120_000);
    expect(submitted).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('loads again at once when asked, instead of at the next refresh', async () => {
    const { clock, loader, submitted } = setup(async () => FLEET);
    loader.start();
    await clock.advance(1_000);
    expect(submitted).toHaveLength(1);

    loader.refreshNow();
    await clock.advance(0);

    expect(submitted).toHaveLength(2);
    await clock.advance(59_999);
    expect(submitted).toHaveLength(2);
    await clock.advance(1);
    expect(submitted).toHaveLength(3);
  });

  it('follows a load in progress with one more when asked meanwhile, however often', async () => {
    const finishers: Array<() => void> = [];
    const { clock, loader, submitted } = setup(
      () =>
        new Promise(resolve => {
          finishers.push(() => resolve(FLEET));
        }),
    );
    loader.start();
    loader.refreshNow();
    loader.refreshNow();
    finishers.shift()!();
    await clock.advance(0);
    expect(submitted).toHaveLength(1);
    expect(finishers).toHaveLength(1);

    finishers.shift()!();
    await clock.advance(0);
    expect(submitted).toHaveLength(2);
    expect(finishers).toHaveLength(0);
  });
});
