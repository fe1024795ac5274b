import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import { POLL_INTERVAL_MS } from '../../hooks';
import {
  createMockSignalApi,
  paymentsHealth,
  statusChanged,
} from '../HealthStatusBadge/__testUtils__/fixtures';
import {
  FORGET_AFTER_MS,
  MAX_CONCURRENT_REQUESTS,
  SystemsHealthStore,
} from './systemsHealthStore';

const PAYMENTS = 'system:default/payments';
const AUTH = 'system:default/auth';
const payments = paymentsHealth();

type Answer = SystemHealthDetails | undefined;

/** A getSystem whose answers the test gives, one request at a time. */
function controlledApi() {
  const pending: Array<{
    systemRef: string;
    resolve(answer: Answer): void;
    reject(error: Error): void;
  }> = [];
  const getSystem = jest.fn(
    (systemRef: string) =>
      new Promise<Answer>((resolve, reject) =>
        pending.push({ systemRef, resolve, reject }),
      ),
  );
  const settled = () => new Promise(process.nextTick);
  return {
    getSystem,
    pending,
    async answer(systemRef: string, answer: Answer | Error) {
      const index = pending.findIndex(p => p.systemRef === systemRef);
      if (index < 0) throw new Error(`no request for ${systemRef} waits`);
      const [request] = pending.splice(index, 1);
      if (answer instanceof Error) request.reject(answer);
      else request.resolve(answer);
      await settled();
    },
  };
}

function storeWith(api = controlledApi(), signals = createMockSignalApi()) {
  return { api, signals, store: new SystemsHealthStore(api, signals) };
}

describe('SystemsHealthStore', () => {
  afterEach(() => jest.useRealTimers());

  it('asks for a system once however many nodes show it, and tells each when the answer came', async () => {
    const { api, store } = storeWith();
    const first = jest.fn();
    const second = jest.fn();
    store.subscribe(PAYMENTS, first);
    store.subscribe(PAYMENTS, second);
    expect(store.getSnapshot(PAYMENTS)).toEqual({ loaded: false });

    await api.answer(PAYMENTS, payments);

    expect(api.getSystem).toHaveBeenCalledTimes(1);
    expect(api.getSystem).toHaveBeenCalledWith(PAYMENTS);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot(PAYMENTS)).toEqual({
      loaded: true,
      rollup: payments,
    });
  });

  it('knows a system the backend does not as loaded without a rollup: no checks', async () => {
    const { api, store } = storeWith();
    store.subscribe(AUTH, () => {});
    await api.answer(AUTH, undefined);
    expect(store.getSnapshot(AUTH)).toEqual({ loaded: true });
  });

  it(`asks for at most ${MAX_CONCURRENT_REQUESTS} systems at once, the others after`, async () => {
    const { api, store } = storeWith();
    const refs = Array.from({ length: 10 }, (_, i) => `system:default/s${i}`);
    refs.forEach(ref => store.subscribe(ref, () => {}));
    expect(api.getSystem).toHaveBeenCalledTimes(MAX_CONCURRENT_REQUESTS);

    await api.answer(refs[0], undefined);
    expect(api.getSystem).toHaveBeenCalledTimes(MAX_CONCURRENT_REQUESTS + 1);
  });

  it('reloads a system its signal names, and none for the signal of a system not shown', async () => {
    const { api, signals, store } = storeWith();
    store.subscribe(PAYMENTS, () => {});
    await api.answer(PAYMENTS, payments);

    signals.emit({ type: 'SYSTEM_STATUS_CHANGED', liveKey: 'hidden-system' });
    expect(api.getSystem).toHaveBeenCalledTimes(1);

    signals.emit(statusChanged(payments));
    expect(api.getSystem).toHaveBeenCalledTimes(2);
  });

  it('asks once more after the request under way when a change is signalled during it', async () => {
    const { api, signals, store } = storeWith();
    store.subscribe(PAYMENTS, () => {});

    signals.emit(statusChanged(payments));
    signals.emit(statusChanged(payments));
    expect(api.getSystem).toHaveBeenCalledTimes(1);

    await api.answer(PAYMENTS, payments);
    expect(api.getSystem).toHaveBeenCalledTimes(2);
    const recovered = paymentsHealth({ status: 'healthy' });
    await api.answer(PAYMENTS, recovered);
    expect(api.getSystem).toHaveBeenCalledTimes(2);
    expect(store.getSnapshot(PAYMENTS).rollup).toBe(recovered);
  });

  it('keeps an error, tells who listens for errors, and retries the failed systems only', async () => {
    const { api, store } = storeWith();
    store.subscribe(PAYMENTS, () => {});
    store.subscribe(AUTH, () => {});
    const errorListener = jest.fn();
    store.subscribeToErrors(errorListener);
    await api.answer(AUTH, undefined);
    await api.answer(PAYMENTS, new Error('database unreachable'));

    expect(store.getSnapshot(PAYMENTS)).toEqual({
      loaded: false,
      error: new Error('database unreachable'),
    });
    expect(store.getError()).toEqual(new Error('database unreachable'));
    expect(errorListener).toHaveBeenCalledTimes(1);

    store.retryFailed();
    expect(api.pending.map(p => p.systemRef)).toEqual([PAYMENTS]);
    await api.answer(PAYMENTS, payments);
    expect(store.getError()).toBeUndefined();
    expect(errorListener).toHaveBeenCalledTimes(2);
  });

  it('forgets a system a while after its last node went, and stops listening with the last one', async () => {
    // The answers settle on the next tick, which stays real.
    jest.useFakeTimers({ doNotFake: ['nextTick'] });
    const { api, signals, store } = storeWith();
    const subscribe = jest.spyOn(signals, 'subscribe');
    const leave = store.subscribe(PAYMENTS, () => {});
    await api.answer(PAYMENTS, payments);

    // A graph that redraws its nodes keeps what it had.
    leave();
    const back = store.subscribe(PAYMENTS, () => {});
    jest.advanceTimersByTime(FORGET_AFTER_MS);
    expect(store.getSnapshot(PAYMENTS).rollup).toBe(payments);
    expect(api.getSystem).toHaveBeenCalledTimes(1);

    back();
    jest.advanceTimersByTime(FORGET_AFTER_MS);
    expect(store.getSnapshot(PAYMENTS)).toEqual({ loaded: false });
    signals.emit(statusChanged(payments));
    expect(api.getSystem).toHaveBeenCalledTimes(1);
    expect(subscribe).toHaveBeenCalledTimes(1);

    store.subscribe(PAYMENTS, () => {});
    expect(api.getSystem).toHaveBeenCalledTimes(2);
    expect(subscribe).toHaveBeenCalledTimes(2);
  });

  it('polls the systems shown every 30 s without signals, until none is shown', async () => {
    jest.useFakeTimers();
    const getSystem = jest.fn(async () => payments);
    const store = new SystemsHealthStore({ getSystem }, undefined);
    const leave = store.subscribe(PAYMENTS, () => {});
    await jest.advanceTimersByTimeAsync(0);
    expect(getSystem).toHaveBeenCalledTimes(1);

    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(getSystem).toHaveBeenCalledTimes(2);

    leave();
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
    expect(getSystem).toHaveBeenCalledTimes(2);
  });
});
