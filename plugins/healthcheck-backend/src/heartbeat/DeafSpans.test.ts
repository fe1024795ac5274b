import { mockServices } from '@backstage/backend-test-utils';
import type {
  DatabaseDeafSpanStore,
  RecordedDeafSpan,
} from './DatabaseDeafSpanStore';
import { DeafSpans } from './DeafSpans';

/** The store in memory, and a switch that makes every call fail. */
function memoryStore(lastHeard?: number) {
  const spans: RecordedDeafSpan[] = [];
  const heard = new Map<string, number>();
  let away = false;
  const failIfAway = () => {
    if (away) {
      throw new Error('connect ECONNREFUSED');
    }
  };
  const store = {
    async add(added: readonly RecordedDeafSpan[]) {
      failIfAway();
      spans.push(...added);
    },
    async readSince(since: number) {
      failIfAway();
      return spans.filter(span => span.to > since);
    },
    async lastHeard() {
      failIfAway();
      return heard.size ? Math.max(...heard.values()) : lastHeard;
    },
    async markHeard(instanceId: string, at: number) {
      failIfAway();
      heard.set(instanceId, at);
    },
  };
  return {
    store: store as unknown as DatabaseDeafSpanStore,
    spans,
    setAway: (value: boolean) => {
      away = value;
    },
  };
}

describe('DeafSpans', () => {
  it('counts the same outage, as every instance reports it, once', async () => {
    const memory = memoryStore();
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    memory.spans.push(
      { from: 1_000, to: 5_000, cause: 'database' },
      { from: 1_200, to: 5_300, cause: 'database' },
    );
    deafSpans.deaf(1_100);
    deafSpans.heard(5_100);
    await deafSpans.stop();
    expect(deafSpans.spans()).toEqual([{ from: 1_000, to: 5_300 }]);
  });

  let now = 1_000_000;
  const clock = () => now;

  function ledger(store: DatabaseDeafSpanStore) {
    return new DeafSpans({
      store,
      instanceId: 'a',
      logger: mockServices.logger.mock(),
      now: clock,
      markEveryMs: 60_000,
    });
  }

  beforeEach(() => {
    now = 1_000_000;
  });

  it('counts this instance deaf from the first database failure until the database answers, and shares the span', async () => {
    const memory = memoryStore();
    const deafSpans = ledger(memory.store);
    await deafSpans.start();

    deafSpans.deaf(now + 1_000);
    deafSpans.deaf(now + 5_000);
    // While it lasts, the span runs up to now.
    expect(deafSpans.spans(now + 8_000)).toEqual([
      { from: now + 1_000, to: now + 8_000 },
    ]);
    deafSpans.heard(now + 30_000);
    await deafSpans.stop();

    expect(memory.spans).toEqual([
      { from: now + 1_000, to: now + 30_000, cause: 'database' },
    ]);
    expect(deafSpans.spans(now + 60_000)).toEqual([
      { from: now + 1_000, to: now + 30_000 },
    ]);
  });

  it('keeps a span it could not write, and writes it with a later mark', async () => {
    const memory = memoryStore();
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    deafSpans.deaf(now);
    deafSpans.heard(now + 10_000);
    memory.setAway(true);
    await deafSpans.stop();
    expect(memory.spans).toEqual([]);
    // Known here all the same.
    expect(deafSpans.spans()).toEqual([{ from: now, to: now + 10_000 }]);

    memory.setAway(false);
    await deafSpans.stop();
    expect(memory.spans).toHaveLength(1);
  });

  it('ends its span when a mark reaches the database, though no ping or read came', async () => {
    const memory = memoryStore();
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    deafSpans.deaf(now);
    now += 20_000;
    await deafSpans.stop();
    expect(memory.spans).toEqual([
      { from: now - 20_000, to: now, cause: 'database' },
    ]);
  });

  it('counts the time no instance ran before this one started', async () => {
    const memory = memoryStore(now - 300_000);
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    await deafSpans.stop();
    expect(memory.spans).toEqual([
      { from: now - 300_000, to: now, cause: 'down' },
    ]);
  });

  it('counts no downtime when an instance heard within the spacing of marks', async () => {
    const memory = memoryStore(now - 30_000);
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    await deafSpans.stop();
    expect(memory.spans).toEqual([]);
  });

  it('looks for the downtime once the database answers, when it did not at start', async () => {
    const memory = memoryStore(now - 300_000);
    memory.setAway(true);
    const deafSpans = ledger(memory.store);
    await deafSpans.start();
    memory.setAway(false);
    await deafSpans.stop();
    expect(memory.spans).toEqual([
      { from: now - 300_000, to: now, cause: 'down' },
    ]);
  });
});
