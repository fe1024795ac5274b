import { initialSliceStatusState } from '../judge';
import { CachedSliceStates } from './CachedSliceStates';
import type { StoredSliceState } from '../model';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

function stored(sliceId: string, lastScheduledAt: number): StoredSliceState {
  return {
    ...initialSliceStatusState(T0),
    status: 'unhealthy',
    consecutiveFailures: 3,
    sliceId,
    checkId: 'c',
    systemRef: 'system:default/s',
    environment: 'production',
    lastScheduledAt,
    lastRunAt: lastScheduledAt + 5,
  };
}

describe('CachedSliceStates', () => {
  function setup(rows: StoredSliceState[]) {
    const reads: string[][] = [];
    const states = new CachedSliceStates({
      readSliceStates: async ids => {
        reads.push([...ids]);
        return new Map(
          rows.filter(r => ids.includes(r.sliceId)).map(r => [r.sliceId, r]),
        );
      },
    });
    return { states, reads };
  }

  it('reads the stored state of a slice it has not run, in one query for the batch', async () => {
    const { states, reads } = setup([stored('a', T0 - 10_000)]);
    await states.prepare([
      { sliceId: 'a', scheduledAt: T0, intervalMs: 10_000 },
      { sliceId: 'b', scheduledAt: T0, intervalMs: 10_000 },
    ]);
    expect(reads).toEqual([['a', 'b']]);
    expect(states.get('a')).toMatchObject({
      status: 'unhealthy',
      consecutiveFailures: 3,
    });
    expect(states.get('b')).toBeUndefined();
  });

  it('does not read a slice whose previous tick ran here', async () => {
    const { states, reads } = setup([]);
    states.set('a', initialSliceStatusState(T0), T0 - 10_000);
    await states.prepare([
      { sliceId: 'a', scheduledAt: T0, intervalMs: 10_000 },
    ]);
    expect(reads).toEqual([]);
  });

  it('reads again when a tick was skipped here, since another instance may have run it', async () => {
    const { states, reads } = setup([stored('a', T0 - 10_000)]);
    states.set('a', initialSliceStatusState(T0), T0 - 20_000);
    await states.prepare([
      { sliceId: 'a', scheduledAt: T0, intervalMs: 10_000 },
    ]);
    expect(reads).toEqual([['a']]);
    expect(states.get('a')?.status).toBe('unhealthy');
  });

  it('gives up waiting for a slow read after its deadline, and takes its answer when it comes', async () => {
    let answer!: (rows: Map<string, StoredSliceState>) => void;
    const states = new CachedSliceStates({
      readSliceStates: () =>
        new Promise(resolve => {
          answer = resolve;
        }),
      readDeadlineMs: 20,
    });

    await expect(
      states.prepare([{ sliceId: 'a', scheduledAt: T0, intervalMs: 10_000 }]),
    ).rejects.toThrow('Stored states of 1 slice(s) not read within 20 ms');
    expect(states.get('a')).toBeUndefined();

    answer(new Map([['a', stored('a', T0 - 10_000)]]));
    await new Promise(resolve => setImmediate(resolve));
    expect(states.get('a')?.status).toBe('unhealthy');
  });

  it('lets a run wait, after its probe, for a read its tick gave up on, up to the settle deadline', async () => {
    const answers: Array<(rows: Map<string, StoredSliceState>) => void> = [];
    const states = new CachedSliceStates({
      readSliceStates: () =>
        new Promise(resolve => {
          answers.push(resolve);
        }),
      readDeadlineMs: 10,
      settleDeadlineMs: 200,
    });
    // Another instance's past: this one last ran `a` long ago, healthy.
    states.set('a', initialSliceStatusState(T0), T0 - 60_000);

    await expect(
      states.prepare([{ sliceId: 'a', scheduledAt: T0, intervalMs: 10_000 }]),
    ).rejects.toThrow('not read within 10 ms');
    const settling = states.settled('a');
    setTimeout(
      () => answers[0](new Map([['a', stored('a', T0 - 10_000)]])),
      30,
    );
    await settling;
    expect(states.get('a')?.status).toBe('unhealthy');

    // A read that never answers holds the run no longer than the deadline.
    await expect(
      states.prepare([
        { sliceId: 'b', scheduledAt: T0 + 60_000, intervalMs: 10_000 },
      ]),
    ).rejects.toThrow();
    const started = Date.now();
    await states.settled('b');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // Nothing under way: no wait at all.
    await states.settled('c');
  });

  it('never lets an older state replace a newer one', () => {
    const { states } = setup([]);
    states.set('a', { ...initialSliceStatusState(T0), status: 'healthy' }, T0);
    states.set('a', stored('a', T0 - 10_000), T0 - 10_000);
    expect(states.get('a')?.status).toBe('healthy');
  });
});
