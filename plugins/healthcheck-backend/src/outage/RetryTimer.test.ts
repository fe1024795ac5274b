import { RetryTimer } from './RetryTimer';

describe('RetryTimer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs one retry after its delay, however often it is armed meanwhile', () => {
    const retry = jest.fn();
    const timer = new RetryTimer(1_000, retry);
    timer.arm();
    timer.arm();
    jest.advanceTimersByTime(999);
    expect(retry).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(retry).toHaveBeenCalledTimes(1);
    timer.arm();
    jest.advanceTimersByTime(1_000);
    expect(retry).toHaveBeenCalledTimes(2);
  });

  it('cancels the retry pending when stopped, and arms no more', () => {
    const retry = jest.fn();
    const timer = new RetryTimer(1_000, retry);
    timer.arm();
    timer.stop();
    timer.arm();
    jest.advanceTimersByTime(5_000);
    expect(retry).not.toHaveBeenCalled();
  });
});
