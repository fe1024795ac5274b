import { mockServices } from '@backstage/backend-test-utils';
import { LastKnownReads } from './LastKnownReads';

const unreachable = () => Promise.reject(new Error('connect ECONNREFUSED'));

describe('LastKnownReads', () => {
  it('answers what the database answers, and remembers it', async () => {
    const reads = new LastKnownReads<string>({ what: 'rollup', max: 10 });
    expect(await reads.read('a', async () => 'healthy')).toEqual({
      value: 'healthy',
      stale: false,
    });
    expect(await reads.read('a', unreachable)).toEqual({
      value: 'healthy',
      stale: true,
    });
  });

  it('answers a read from memory without a deadline timer, and remembers it', async () => {
    jest.useFakeTimers();
    try {
      const reads = new LastKnownReads<string>({ what: 'checks', max: 10 });
      const answer = reads.read('a', () => 'healthy');
      expect(jest.getTimerCount()).toBe(0);
      expect(await answer).toEqual({ value: 'healthy', stale: false });
      const slow = reads.read('a', () => new Promise<string>(() => {}));
      expect(jest.getTimerCount()).toBe(1);
      jest.runOnlyPendingTimers();
      expect(await slow).toEqual({ value: 'healthy', stale: true });
    } finally {
      jest.useRealTimers();
    }
  });

  it('answers 503 for a key it knows nothing of while the database cannot be read', async () => {
    const reads = new LastKnownReads<string>({ what: 'rollup', max: 10 });
    await expect(reads.read('a', unreachable)).rejects.toMatchObject({
      name: 'ServiceUnavailableError',
      message: expect.stringContaining(
        'The database cannot be read, and no rollup of a is known',
      ),
    });
  });

  it('answers the last value after the deadline, and remembers the late answer', async () => {
    const reads = new LastKnownReads<string>({
      what: 'rollup',
      max: 10,
      deadlineMs: 50,
    });
    await reads.read('a', async () => 'healthy');
    let answer!: (value: string) => void;
    const slow = new Promise<string>(resolve => {
      answer = resolve;
    });

    expect(await reads.read('a', () => slow)).toEqual({
      value: 'healthy',
      stale: true,
    });
    answer('unhealthy');
    await slow;
    expect(await reads.read('a', unreachable)).toEqual({
      value: 'unhealthy',
      stale: true,
    });
  });

  it('answers the keys it knows of a failed read of many, and 503 when it knows none', async () => {
    const reads = new LastKnownReads<string | undefined>({
      what: 'rollup',
      max: 10,
    });
    await reads.readMany(
      ['a', 'b'],
      async () => new Map([['a', 'healthy']]),
      undefined,
    );

    expect(
      await reads.readMany(['a', 'b', 'c'], unreachable, undefined),
    ).toEqual({
      values: new Map([
        ['a', 'healthy'],
        ['b', undefined],
      ]),
      stale: true,
    });
    await expect(
      reads.readMany(['c'], unreachable, undefined),
    ).rejects.toMatchObject({ name: 'ServiceUnavailableError' });
  });

  it('remembers at most `max` keys, the least recently read dropped first', async () => {
    const reads = new LastKnownReads<number>({ what: 'rollup', max: 2 });
    for (const key of ['a', 'b', 'c']) {
      await reads.read(key, async () => 1);
    }
    await expect(reads.read('a', unreachable)).rejects.toThrow();
    expect((await reads.read('c', unreachable)).stale).toBe(true);
  });

  it('logs once when reads start failing and once when they answer again', async () => {
    const logger = mockServices.logger.mock();
    const reads = new LastKnownReads<number>({
      what: 'rollup',
      max: 2,
      logger,
    });
    await reads.read('a', async () => 1);
    await reads.read('a', unreachable);
    await reads.read('a', unreachable);
    await reads.read('a', async () => 2);
    await reads.read('a', async () => 3);

    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.info.mock.calls).toEqual([
      ['The database answers reads of rollup again'],
    ]);
  });
});
