import {
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import { POLL_INTERVAL_MS } from '../../hooks';
import {
  createMockSignalApi,
  paymentsHealth,
  statusChanged,
} from '../HealthStatusBadge/__testUtils__/fixtures';
import { SystemsHealthStore } from './systemsHealthStore';

function listOf(items: SystemHealthSummary[]): SystemListResponse {
  return {
    items,
    totalCount: items.length,
    counts: {
      healthy: 0,
      degraded: items.length,
      unhealthy: 0,
      unknown: 0,
      paused: 0,
    },
  };
}

/** A listSystems whose answers the test releases one at a time. */
function controlledListSystems() {
  const pending: Array<(list: SystemListResponse) => void> = [];
  const listSystems = jest.fn(
    () => new Promise<SystemListResponse>(resolve => pending.push(resolve)),
  );
  return {
    listSystems,
    async answer(list: SystemListResponse) {
      const resolve = pending.shift();
      if (!resolve) throw new Error('no request is waiting for an answer');
      resolve(list);
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

const payments = paymentsHealth();

describe('SystemsHealthStore', () => {
  it('lists the systems once for any number of listeners, and tells each when the answer came', async () => {
    const api = controlledListSystems();
    const store = new SystemsHealthStore(api, createMockSignalApi());
    const first = jest.fn();
    const second = jest.fn();
    store.subscribe(first);
    store.subscribe(second);
    expect(store.getSnapshot().loaded).toBe(false);

    await api.answer(listOf([payments]));

    expect(api.listSystems).toHaveBeenCalledTimes(1);
    expect(api.listSystems).toHaveBeenCalledWith({ limit: 500 });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
    const snapshot = store.getSnapshot();
    expect(snapshot).toMatchObject({ loaded: true, complete: true });
    expect(snapshot.rollupOf('system:default/payments')).toBe(payments);
    expect(snapshot.rollupOf('system:default/auth')).toBeUndefined();
  });

  it('is incomplete when the backend has more systems than one page', async () => {
    const api = controlledListSystems();
    const store = new SystemsHealthStore(api, createMockSignalApi());
    store.subscribe(() => {});
    await api.answer({ ...listOf([payments]), nextCursor: 'next' });
    expect(store.getSnapshot().complete).toBe(false);
  });

  it('reloads on the signal of a listed system, not on that of a system it cannot see', async () => {
    const api = controlledListSystems();
    const signals = createMockSignalApi();
    const store = new SystemsHealthStore(api, signals);
    store.subscribe(() => {});
    await api.answer(listOf([payments]));

    signals.emit({ type: 'SYSTEM_STATUS_CHANGED', liveKey: 'hidden-system' });
    expect(api.listSystems).toHaveBeenCalledTimes(1);

    signals.emit(statusChanged(payments));
    expect(api.listSystems).toHaveBeenCalledTimes(2);
  });

  it('asks once more after the request under way when a change is signalled during it', async () => {
    const api = controlledListSystems();
    const signals = createMockSignalApi();
    const store = new SystemsHealthStore(api, signals);
    store.subscribe(() => {});

    signals.emit(statusChanged(payments));
    signals.emit(statusChanged(payments));
    expect(api.listSystems).toHaveBeenCalledTimes(1);

    await api.answer(listOf([payments]));
    expect(api.listSystems).toHaveBeenCalledTimes(2);
    const recovered = paymentsHealth({ status: 'healthy' });
    await api.answer(listOf([recovered]));
    expect(api.listSystems).toHaveBeenCalledTimes(2);
    expect(store.getSnapshot().rollupOf('system:default/payments')).toBe(
      recovered,
    );
  });

  it('keeps the error, with no health, until a reload answers', async () => {
    const listSystems = jest
      .fn()
      .mockRejectedValueOnce(new Error('database unreachable'))
      .mockResolvedValue(listOf([payments]));
    const store = new SystemsHealthStore(
      { listSystems },
      createMockSignalApi(),
    );
    const listener = jest.fn();
    store.subscribe(listener);
    await new Promise(process.nextTick);
    expect(store.getSnapshot()).toMatchObject({
      loaded: false,
      error: new Error('database unreachable'),
    });

    store.reload();
    await new Promise(process.nextTick);
    expect(store.getSnapshot()).toMatchObject({ loaded: true });
    expect(store.getSnapshot().error).toBeUndefined();
  });

  it('stops listening when the last listener leaves, and shows the last answer at once when one comes back, reloading it', async () => {
    const api = controlledListSystems();
    const signals = createMockSignalApi();
    const subscribe = jest.spyOn(signals, 'subscribe');
    const store = new SystemsHealthStore(api, signals);
    const leave = store.subscribe(() => {});
    await api.answer(listOf([payments]));
    expect(subscribe).toHaveBeenCalledTimes(1);

    leave();
    signals.emit(statusChanged(payments));
    expect(api.listSystems).toHaveBeenCalledTimes(1);

    store.subscribe(() => {});
    expect(store.getSnapshot().rollupOf('system:default/payments')).toBe(
      payments,
    );
    expect(api.listSystems).toHaveBeenCalledTimes(2);
    expect(subscribe).toHaveBeenCalledTimes(2);
  });

  describe('without signals', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('polls while anyone listens, and stops when the last one leaves', async () => {
      const listSystems = jest.fn().mockResolvedValue(listOf([payments]));
      const store = new SystemsHealthStore({ listSystems }, undefined);
      const leave = store.subscribe(() => {});
      await jest.advanceTimersByTimeAsync(0);
      expect(listSystems).toHaveBeenCalledTimes(1);

      await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
      expect(listSystems).toHaveBeenCalledTimes(2);

      leave();
      await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
      expect(listSystems).toHaveBeenCalledTimes(2);
    });
  });
});
