import { mockServices } from '@backstage/backend-test-utils';
import { CATALOG_CHANGES_TOPIC } from '@vigil/plugin-healthcheck-node';
import { CatalogChangeListener } from './CatalogChangeListener';

function setup(options: { fullPassAbove?: number } = {}) {
  const outcome = (changedSystems: string[]) => ({
    scope: 'full' as const,
    ran: true,
    changedSystems,
    revision: 1,
  });
  const reconciler = {
    reconcileSystems: jest.fn(async (systems: readonly string[]) =>
      outcome([...systems]),
    ),
    reconcileAll: jest.fn(async () => outcome([])),
  };
  const logger = mockServices.logger.mock();
  const onSlicesChanged = jest.fn();
  const listener = new CatalogChangeListener({
    reconciler: reconciler as any,
    logger,
    onSlicesChanged,
    settleMs: 2_000,
    recheckMs: 15_000,
    ...options,
  });
  return { listener, reconciler, logger, onSlicesChanged };
}

const change = (systems: string[], extra: object = {}) => ({
  entityRef: 'component:default/api',
  systems,
  ...extra,
});

describe('CatalogChangeListener', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reconciles the systems a change names after the catalog settles, and once more later', async () => {
    const { listener, reconciler, onSlicesChanged } = setup();
    listener.hear(change(['system:default/payments']));
    listener.hear(change(['system:default/search', 'system:default/payments']));
    await jest.advanceTimersByTimeAsync(1_999);
    expect(reconciler.reconcileSystems).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(reconciler.reconcileSystems).toHaveBeenCalledTimes(1);
    expect([...reconciler.reconcileSystems.mock.calls[0][0]].sort()).toEqual([
      'system:default/payments',
      'system:default/search',
    ]);
    expect(onSlicesChanged).toHaveBeenCalledTimes(1);

    listener.hear(change(['system:default/orders']));
    await jest.advanceTimersByTimeAsync(2_000);
    expect(reconciler.reconcileSystems).toHaveBeenLastCalledWith([
      'system:default/orders',
    ]);
    await jest.advanceTimersByTimeAsync(11_000);
    expect(reconciler.reconcileSystems).toHaveBeenCalledTimes(3);
    expect([...reconciler.reconcileSystems.mock.calls[2][0]].sort()).toEqual([
      'system:default/orders',
      'system:default/payments',
      'system:default/search',
    ]);
    expect(reconciler.reconcileAll).not.toHaveBeenCalled();
  });

  it('runs a full pass for an Environment, or for more systems than scoped passes are worth', async () => {
    const { listener, reconciler } = setup({ fullPassAbove: 2 });
    listener.hear(change([], { allSystems: true }));
    await jest.advanceTimersByTimeAsync(2_000);
    expect(reconciler.reconcileAll).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(13_000);
    expect(reconciler.reconcileAll).toHaveBeenCalledTimes(2);

    for (const name of ['a', 'b', 'c']) {
      listener.hear(change([`system:default/${name}`]));
    }
    await jest.advanceTimersByTimeAsync(2_000);
    expect(reconciler.reconcileAll).toHaveBeenCalledTimes(3);
    expect(reconciler.reconcileSystems).not.toHaveBeenCalled();
  });

  it('drops what is not a change, saying why, and keeps listening after a pass fails', async () => {
    const { listener, reconciler, logger } = setup();
    listener.hear({ entityRef: 'api', systems: [] });
    listener.hear(change(['payments']));
    expect(logger.warn).toHaveBeenCalledWith(
      `Ignored an event on ${CATALOG_CHANGES_TOPIC}: entityRef is not an entity ref`,
    );
    expect(logger.warn).toHaveBeenCalledTimes(2);
    reconciler.reconcileSystems.mockRejectedValueOnce(
      new Error('catalog down'),
    );
    listener.hear(change(['system:default/payments']));
    await jest.advanceTimersByTimeAsync(2_000);
    expect(logger.warn).toHaveBeenLastCalledWith(
      'Could not reconcile the systems the catalog said changed: Error: catalog down',
    );
    await jest.advanceTimersByTimeAsync(13_000);
    expect(reconciler.reconcileSystems).toHaveBeenCalledTimes(2);
  });

  it('subscribes to the topic, and does nothing once stopped', async () => {
    const { listener, reconciler } = setup();
    const events = mockServices.events.mock();
    await listener.subscribe(events);
    expect(events.subscribe).toHaveBeenCalledWith(
      expect.objectContaining({ topics: [CATALOG_CHANGES_TOPIC] }),
    );
    const { onEvent } = (events.subscribe as jest.Mock).mock.calls[0][0];
    await onEvent({
      topic: CATALOG_CHANGES_TOPIC,
      eventPayload: change(['system:default/payments']),
    });
    listener.stop();
    await jest.advanceTimersByTimeAsync(20_000);
    expect(reconciler.reconcileSystems).not.toHaveBeenCalled();
  });
});
