import type { Knex } from 'knex';

/**
 * The PostgreSQL channel on which every write of a system's rollup, slices
 * or slice states names the systems it touched (see the migration
 * `20261216000000_system_change_notifications`).
 * @internal
 */
export const SYSTEM_CHANGES_CHANNEL = 'healthcheck_systems_changed';

/**
 * The systems one notification names: lower-case refs, one a line.
 * @internal
 */
export function systemRefsOfNotification(
  payload: string | undefined,
): string[] {
  return (payload ?? '').split('\n').filter(ref => ref.length > 0);
}

/**
 * A connection listening on {@link SYSTEM_CHANGES_CHANNEL}.
 * @internal
 */
export interface SystemChangesListener {
  close(): Promise<void>;
}

/**
 * What the listener tells: the systems each committed write touched, and
 * that the connection is gone (after which nothing more is told; what was
 * written meanwhile is missed, so whoever listens must read everything
 * again once listening anew).
 * @internal
 */
export interface SystemChangesHandlers {
  onChanged(systemRefs: string[]): void;
  onLost(error: Error): void;
}

interface RawConnection {
  query(sql: string): Promise<unknown>;
  on(
    event: 'notification',
    listener: (message: NotificationMessage) => void,
  ): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
}

interface NotificationMessage {
  channel: string;
  payload?: string;
}

/**
 * Listens on {@link SYSTEM_CHANGES_CHANNEL} on a connection of its own,
 * outside the pool (a pooled one would be taken from the queries for
 * good). PostgreSQL only.
 * @internal
 */
export async function listenForSystemChanges(
  knex: Knex,
  handlers: SystemChangesHandlers,
): Promise<SystemChangesListener> {
  const client = knex.client as {
    acquireRawConnection(): Promise<RawConnection>;
    destroyRawConnection(connection: RawConnection): Promise<void>;
  };
  const connection = await client.acquireRawConnection();
  let closed = false;
  const lost = (error?: Error) => {
    if (closed) {
      return;
    }
    closed = true;
    connection.removeAllListeners();
    // A late error of the dead connection must not go unhandled.
    connection.on('error', () => {});
    handlers.onLost(
      error ?? new Error('The connection listening for system changes ended'),
    );
    client.destroyRawConnection(connection).catch(() => {});
  };
  connection.on('notification', message => {
    if (message.channel === SYSTEM_CHANGES_CHANNEL) {
      handlers.onChanged(systemRefsOfNotification(message.payload));
    }
  });
  connection.on('error', error => lost(error));
  connection.on('end', () => lost());
  try {
    await connection.query(`LISTEN ${SYSTEM_CHANGES_CHANNEL}`);
  } catch (error) {
    closed = true;
    connection.removeAllListeners();
    connection.on('error', () => {});
    await client.destroyRawConnection(connection).catch(() => {});
    throw error;
  }
  return {
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      connection.removeAllListeners();
      connection.on('error', () => {});
      await client.destroyRawConnection(connection);
    },
  };
}
