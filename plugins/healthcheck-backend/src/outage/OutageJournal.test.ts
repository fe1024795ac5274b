import type { JournalEvent, JournalMetrics } from './journalMetrics';
import { OutageJournal } from './OutageJournal';

interface Entry {
  sliceId: string;
  scheduledAt: number;
  result: string;
}

const entry = (sliceId: string, scheduledAt: number, result = 'pass') => ({
  sliceId,
  scheduledAt,
  result,
});

function recorder() {
  const counts: Partial<Record<JournalEvent, number>> = {};
  let readSize: () => number = () => NaN;
  const metrics: JournalMetrics = {
    addEntries: (count, event) => {
      counts[event] = (counts[event] ?? 0) + count;
    },
    observeSize: read => {
      readSize = read;
    },
  };
  return { metrics, counts, size: () => readSize() };
}

/** A write that records each batch it is given. */
function batches() {
  const written: Entry[][] = [];
  return {
    written,
    write: async (batch: Entry[]) => {
      written.push(batch);
    },
  };
}

describe('OutageJournal', () => {
  it('keeps the first result of a tick and counts the second as a duplicate', () => {
    const { metrics, counts } = recorder();
    const journal = new OutageJournal<Entry>({ maxEntries: 10, metrics });

    expect(journal.add(entry('a', 1000, 'fail'))).toBe(true);
    expect(journal.add(entry('a', 1000, 'pass'))).toBe(false);
    expect(journal.add(entry('a', 2000))).toBe(true);

    expect(journal.size).toBe(2);
    expect(counts).toEqual({ journaled: 2, duplicate: 1 });
  });

  it('drops the oldest entry past its bound, and counts it', async () => {
    const { metrics, counts, size } = recorder();
    const journal = new OutageJournal<Entry>({ maxEntries: 3, metrics });
    for (let tick = 1; tick <= 5; tick++) {
      journal.add(entry('a', tick * 1000));
    }

    expect(journal.size).toBe(3);
    expect(size()).toBe(3);
    expect(counts).toEqual({ journaled: 5, dropped: 2 });
    const { written, write } = batches();
    await journal.flush(write, { batchSize: 10 });
    expect(written.flat().map(e => e.scheduledAt)).toEqual([3000, 4000, 5000]);
  });

  it('writes in batches, oldest first, and is empty afterwards', async () => {
    const { metrics, counts } = recorder();
    const journal = new OutageJournal<Entry>({ maxEntries: 100, metrics });
    for (let tick = 1; tick <= 7; tick++) {
      journal.add(entry(`s${tick % 2}`, tick * 1000));
    }
    const { written, write } = batches();

    await expect(journal.flush(write, { batchSize: 3 })).resolves.toEqual({
      written: 7,
      remaining: 0,
    });

    expect(written.map(batch => batch.map(e => e.scheduledAt))).toEqual([
      [1000, 2000, 3000],
      [4000, 5000, 6000],
      [7000],
    ]);
    expect(journal.size).toBe(0);
    expect(counts.written).toBe(7);
  });

  it('puts one entry of a group in a batch: the second starts the next', async () => {
    const journal = new OutageJournal<Entry>({ maxEntries: 100 });
    journal.add(entry('a', 1000));
    journal.add(entry('b', 1000));
    journal.add(entry('a', 2000, 'fail'));
    journal.add(entry('c', 2000));
    journal.add(entry('a', 3000, 'fail'));
    journal.add(entry('b', 3000));
    const { written, write } = batches();

    await journal.flush(write, { batchSize: 100, groupOf: e => e.sliceId });

    expect(written.map(batch => batch.map(e => e.sliceId))).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['a', 'b'],
    ]);
  });

  it('keeps the failed batch and everything after it when a write fails midway', async () => {
    const journal = new OutageJournal<Entry>({ maxEntries: 100 });
    for (let tick = 1; tick <= 6; tick++) {
      journal.add(entry('a', tick * 1000));
    }
    const failure = new Error('connection refused');
    let calls = 0;
    const flushed = await journal.flush(
      async () => {
        calls++;
        if (calls === 2) {
          throw failure;
        }
      },
      { batchSize: 2 },
    );

    expect(flushed).toEqual({ written: 2, remaining: 4, error: failure });
    const { written, write } = batches();
    await journal.flush(write, { batchSize: 10 });
    expect(written.flat().map(e => e.scheduledAt)).toEqual([
      3000, 4000, 5000, 6000,
    ]);
  });

  it('leaves what is added while it flushes to the next flush, and joins a second call', async () => {
    const journal = new OutageJournal<Entry>({ maxEntries: 100 });
    journal.add(entry('a', 1000));
    const written: number[] = [];
    let release!: () => void;
    const firstWrite = new Promise<void>(resolve => {
      release = resolve;
    });
    const write = async (batch: Entry[]) => {
      if (written.length === 0) {
        await firstWrite;
      }
      written.push(...batch.map(e => e.scheduledAt));
    };

    const first = journal.flush(write, { batchSize: 10 });
    expect(journal.flushing).toBe(true);
    const second = journal.flush(
      async () => {
        throw new Error('a joined flush never writes on its own');
      },
      { batchSize: 10 },
    );
    journal.add(entry('a', 2000));
    release();

    expect(await first).toEqual({ written: 1, remaining: 1 });
    expect(await second).toEqual({ written: 1, remaining: 1 });
    expect(written).toEqual([1000]);
    expect(journal.flushing).toBe(false);

    expect(await journal.flush(write, { batchSize: 10 })).toEqual({
      written: 1,
      remaining: 0,
    });
    expect(written).toEqual([1000, 2000]);
  });

  it('refuses a bound that is not a positive whole number', () => {
    expect(() => new OutageJournal({ maxEntries: 0 })).toThrow(
      "The outage journal's maxEntries must be a whole number of at least 1, got 0",
    );
  });
});
