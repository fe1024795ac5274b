import type { Knex } from 'knex';
import { sliceStateOfRow } from '../database/DatabaseStateStore';
import type { StoredSliceState } from '../model';

/**
 * The PostgreSQL channel on which every write of a system's rollup or
 * slices names the systems it touched (see the migration
 * `20261216000000_system_change_notifications`).
 * @internal
 */
export const SYSTEM_CHANGES_CHANNEL = 'healthcheck_systems_changed';

/**
 * The PostgreSQL channel on which every insert or update of slice states
 * carries the states written (see the migration
 * `20261222000000_slice_state_notifications`).
 * @internal
 */
export const SLICE_STATES_CHANNEL = 'healthcheck_slice_states_changed';

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
 * The slice states one notification carries: a row of
 * `healthcheck_slice_states` a line, as `row_to_json` writes it. Throws on
 * a line that is not such a row.
 * @internal
 */
export function sliceStatesOfNotification(
  payload: string | undefined,
): StoredSliceState[] {
  const states: StoredSliceState[] = [];
  for (const line of (payload ?? '').split('\n')) {
    if (line.length === 0) {
      continue;
    }
    const row = JSON.parse(line);
    if (
      typeof row?.slice_id !== 'string' ||
      typeof row.system_ref !== 'string' ||
      !Number.isFinite(row.last_scheduled_at)
    ) {
      throw new Error(
        `A notification on ${SLICE_STATES_CHANNEL} carries something that is not a slice state: ${line.slice(
          0,
          200,
        )}`,
      );
    }
    states.push(sliceStateOfRow(row));
  }
  return states;
}

/**
 * A connection listening on {@link SYSTEM_CHANGES_CHANNEL} and
 * {@link SLICE_STATES_CHANNEL}.
 * @internal
 */
export interface SystemChangesListener {
  close(): Promise<void>;
}

/**
 * What the listener tells: the systems each committed write touched, the
 * slice states it wrote, and that the connection is gone (after which
 * nothing more is told; what was written meanwhile is missed, so whoever
 * listens must read everything again once listening anew). A notification
 * that cannot be read counts as the connection lost, for the same reason.
 * @internal
 */
export interface SystemChangesHandlers {
  onChanged(systemRefs: string[]): void;
  onSliceStates(states: StoredSliceState[]): void;
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
 * Listens on {@link SYSTEM_CHANGES_CHANNEL} and {@link SLICE_STATES_CHANNEL}
 * on a connection of its own, outside the pool (a pooled one would be
 * taken from the queries for good). PostgreSQL only.
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
    } else if (message.channel === SLICE_STATES_CHANNEL) {
      let states: StoredSliceState[];
      try {
        states = sliceStatesOfNotification(message.payload);
      } catch (error) {
        lost(error as Error);
        return;
      }
      handlers.onSliceStates(states);
    }
  });
  connection.on('error', error => lost(error));
  connection.on('end', () => lost());
  try {
    await connection.query(
      `LISTEN ${SYSTEM_CHANGES_CHANNEL}; LISTEN ${SLICE_STATES_CHANNEL}`,
    );
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
