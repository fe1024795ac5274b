import { mockServices } from '@backstage/backend-test-utils';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { DatabaseOutbox, OutboxDispatcher } from '../outbox';

/**
 * An outbox on a test database (its migrations applied) whose dispatcher
 * is not started: `deliver()` delivers everything due, as the dispatcher's
 * rounds would, so a test says when side effects reach their receivers.
 */
export function testOutbox(knex: Knex, options: { now?: () => number } = {}) {
  const dispatcher = new OutboxDispatcher({
    outbox: new DatabaseOutbox(knex),
    instanceId: `test-${randomUUID()}`,
    logger: mockServices.logger.mock(),
    now: options.now,
  });
  return {
    dispatcher,
    /** Delivers until nothing is due. */
    async deliver(): Promise<void> {
      while ((await dispatcher.deliverDue()) > 0) {
        // Each round frees the next entry of each stream.
      }
    },
  };
}
