import { mockServices } from '@backstage/backend-test-utils';
import type { PingKind } from './DatabaseHeartbeatStore';
import { type JournaledPing, PingJournal } from './PingJournal';

/** A heartbeat store in memory that can be made to fail, as the database away. */
function memoryStore() {
  const tokens = new Map([['hash-1', { sliceId: 's1', checkId: 'export' }]]);
  const recorded: Array<[string, PingKind, number, string | undefined]> = [];
  let away = true;
  const failIfAway = () => {
    if (away) {
      throw new Error('connect ECONNREFUSED');
    }
  };
  return {
    store: {
      async findByTokenHash(hash: string) {
        failIfAway();
        return tokens.get(hash);
      },
      async recordPing(
        sliceId: string,
        kind: PingKind,
        at: number,
        message: string | undefined,
      ) {
        failIfAway();
        recorded.push([sliceId, kind, at, message]);
      },
    },
    tokens,
    recorded,
    setAway: (value: boolean) => {
      away = value;
    },
  };
}

const ping = (at: number, kind: PingKind = 'success'): JournaledPing => ({
  sliceId: 's1',
  checkId: 'export',
  scheduledAt: at,
  kind,
  tokenHash: 'hash-1',
  message: kind === 'fail' ? 'disk full' : undefined,
});

describe('PingJournal', () => {
  it('writes pings taken while the database was away once it answers, each at the time it came, and tells of them', async () => {
    const memory = memoryStore();
    const answered = jest.fn();
    const journal = new PingJournal({
      store: memory.store,
      logger: mockServices.logger.mock(),
      maxEntries: 100,
      onDatabaseAnswered: answered,
      retryMs: 10,
    });
    const written: JournaledPing[] = [];
    journal.onWritten(pings => written.push(...pings));

    journal.keep(ping(1_000, 'start'));
    journal.keep(ping(2_000));
    journal.keep(ping(3_000, 'fail'));
    await journal.flush();
    expect(journal.size).toBe(3);
    expect(memory.recorded).toEqual([]);

    memory.setAway(false);
    // The retry every few ms writes them without being asked.
    await new Promise(resolve => setTimeout(resolve, 100));
    expect(memory.recorded).toEqual([
      ['s1', 'start', 1_000, undefined],
      ['s1', 'success', 2_000, undefined],
      ['s1', 'fail', 3_000, 'disk full'],
    ]);
    expect(written.map(p => p.scheduledAt)).toEqual([1_000, 2_000, 3_000]);
    expect(journal.size).toBe(0);
    expect(answered).toHaveBeenCalled();
    await journal.stop();
  });

  it('drops a ping whose ping URL was replaced meanwhile', async () => {
    const memory = memoryStore();
    const journal = new PingJournal({
      store: memory.store,
      logger: mockServices.logger.mock(),
      maxEntries: 100,
    });
    journal.keep(ping(1_000));
    memory.tokens.clear();
    memory.setAway(false);
    await journal.flush();
    expect(memory.recorded).toEqual([]);
    expect(journal.size).toBe(0);
    await journal.stop();
  });

  it('keeps at most its bound, the oldest going first', async () => {
    const memory = memoryStore();
    const journal = new PingJournal({
      store: memory.store,
      logger: mockServices.logger.mock(),
      maxEntries: 2,
    });
    journal.keep(ping(1_000));
    journal.keep(ping(2_000));
    journal.keep(ping(3_000));
    memory.setAway(false);
    await journal.flush();
    expect(memory.recorded.map(([, , at]) => at)).toEqual([2_000, 3_000]);
    await journal.stop();
  });

  it('says at stop how many pings the database never took', async () => {
    const memory = memoryStore();
    const logger = mockServices.logger.mock();
    const journal = new PingJournal({
      store: memory.store,
      logger,
      maxEntries: 100,
    });
    journal.keep(ping(1_000));
    await journal.stop();
    expect(logger.warn).toHaveBeenCalledWith(
      'Stopped with 1 ping(s) the database never took; they are lost',
    );
  });
});
