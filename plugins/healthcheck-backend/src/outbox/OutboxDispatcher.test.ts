import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';

/** Waits until `condition` holds, failing with `what` after 20 s. */
const until = (what: string, condition: () => Promise<boolean>) =>
  waitFor(what, condition, Boolean, 20_000);
import { DatabaseOutbox } from './DatabaseOutbox';
import { OutboxDispatcher, OutboxDispatcherSettings } from './OutboxDispatcher';
import type { DeliveryResult } from './outboxMetrics';

jest.setTimeout(60_000);

/** Fast enough for a test to watch several retries. */
const QUICK: Partial<OutboxDispatcherSettings> = {
  pollMs: 20,
  retryBaseMs: 20,
  retryMaxMs: 80,
  deliveryTimeoutMs: 300,
  maintenanceMs: 0,
};

describe('OutboxDispatcher', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const running: OutboxDispatcher[] = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map(d => d.stop()));
  });

  async function setup(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const outbox = await DatabaseOutbox.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    const results: Array<[string, DeliveryResult, number]> = [];
    const dispatcher = (
      instanceId: string,
      settings: Partial<OutboxDispatcherSettings> = QUICK,
    ) => {
      const d = new OutboxDispatcher({
        outbox,
        instanceId,
        logger: mockServices.logger.mock(),
        settings,
        metrics: {
          addDeliveries: (count, kind, result) =>
            results.push([kind, result, count]),
          observe() {},
        },
      });
      running.push(d);
      return d;
    };
    const write = (stream: string, payload: unknown, kind = 'greeting') =>
      knex.transaction(tx =>
        outbox.write([{ stream, kind, payload }], Date.now(), tx),
      );
    return { knex, outbox, dispatcher, write, results };
  }

  describe.each(databases.eachSupportedId())('on %p', databaseId => {
    it('delivers what any instance wrote, once accepted, and forgets it', async () => {
      const { outbox, dispatcher, write, results } = await setup(databaseId);
      const received: unknown[] = [];
      const d = dispatcher('one');
      d.handle('greeting', async payload => {
        received.push(payload);
      });
      d.start();

      await write('a', { hello: 'world' });
      d.wake();

      await until('the delivery', async () => received.length === 1);
      await until(
        'the outbox to be empty',
        async () => (await outbox.measure()).pending === 0,
      );
      expect(received).toEqual([{ hello: 'world' }]);
      expect(results).toContainEqual(['greeting', 'delivered', 1]);
    });

    it('retries a receiver that fails until it accepts, then delivers the rest of the stream in order', async () => {
      const { outbox, dispatcher, write, results } = await setup(databaseId);
      let refusals = 3;
      const received: number[] = [];
      const d = dispatcher('one');
      d.handle('greeting', async ({ n }) => {
        if (refusals > 0) {
          refusals--;
          throw new Error('503 Service Unavailable');
        }
        received.push(n);
      });
      await write('a', { n: 1 });
      await write('a', { n: 2 });
      d.start();

      await until('both deliveries', async () => received.length === 2);
      expect(received).toEqual([1, 2]);
      expect(results.filter(([, result]) => result === 'failed')).toHaveLength(
        3,
      );
      expect((await outbox.measure()).pending).toBe(0);
    });

    it('counts a delivery that hangs as failed, and retries it', async () => {
      const { dispatcher, write } = await setup(databaseId);
      let calls = 0;
      const d = dispatcher('one');
      d.handle('greeting', async () => {
        calls++;
        if (calls === 1) {
          await new Promise(() => {}); // never answers
        }
      });
      await write('a', {});
      d.start();

      await until('a second call after the timeout', async () => calls >= 2);
      expect(calls).toBeGreaterThanOrEqual(2);
    });

    it('leaves an entry it cannot deliver to an instance that can', async () => {
      const { dispatcher, write, outbox } = await setup(databaseId);
      const old = dispatcher('old-version');
      old.start();
      await write('a', {}, 'kind-of-a-newer-version');
      await until(
        'the old version to give up on it',
        async () => (await outbox.measure()).failing === 1,
      );

      const received: unknown[] = [];
      const current = dispatcher('new-version');
      current.handle('kind-of-a-newer-version', async p => {
        received.push(p);
      });
      current.start();
      await until('the newer instance to deliver', async () => {
        return received.length === 1;
      });
      expect(received).toEqual([{}]);
    });

    it('hands what it holds to the others when it stops', async () => {
      const { dispatcher, write, outbox } = await setup(databaseId);
      await write('a', {});
      // Claimed, not yet delivered, when the instance stops.
      const claimed = await outbox.claimDue({
        instanceId: 'stopping',
        now: Date.now(),
        leaseMs: 600_000,
        limit: 10,
      });
      expect(claimed).toHaveLength(1);
      await dispatcher('stopping').stop();

      const received: unknown[] = [];
      const other = dispatcher('other');
      other.handle('greeting', async p => {
        received.push(p);
      });
      other.start();
      await until('the other instance', async () => received.length === 1);
    });

    it('delivers an entry again when its delivery asks to, without counting a failure', async () => {
      const { dispatcher, write, outbox, results } = await setup(databaseId);
      const calls: number[] = [];
      const d = dispatcher('one');
      d.handle('greeting', async () => {
        calls.push(Date.now());
        return calls.length < 3 ? { again: Date.now() + 50 } : undefined;
      });
      await write('a', {});
      d.start();

      await until('the third call', async () => calls.length === 3);
      await until(
        'the outbox to be empty',
        async () => (await outbox.measure()).pending === 0,
      );
      expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(50);
      expect(results.filter(([, result]) => result === 'failed')).toEqual([]);
    });

    it('drops entries older than the delivery deadline, and says so', async () => {
      const { dispatcher, write, outbox, results } = await setup(databaseId);
      await write('a', {});
      const d = dispatcher('one', { ...QUICK, maxAgeMs: -1 });
      d.handle('greeting', async () => {
        throw new Error('never accepted');
      });
      d.start();
      await until(
        'the entry to be dropped',
        async () => (await outbox.measure()).pending === 0,
      );
      expect(results).toContainEqual(['greeting', 'dropped', 1]);
    });
  });
});
