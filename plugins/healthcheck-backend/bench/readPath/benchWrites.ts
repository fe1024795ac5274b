/*
 * Run-write throughput: completed runs stored in batches through the real
 * write path, against a naive path measured in the same run.
 *
 * - claim + complete: `DatabaseClaimStore.claimTicks` for a batch of ticks
 *   (the claim row is the run row), then `writeRuns` with their results (filling the claims in).
 * - + slice states: the same, then `createRunFollowUp` (what plugin.ts runs
 *   after every results write): the slices' durable states.
 * - createTickClaims: the production wiring: `TickClaimer.claim` for the
 *   batch, then one `complete(record)` per run as runs finish, written
 *   behind them through outage mode's journal (one write in flight, at most
 *   1,000 results each, `writeRuns`), with the follow-up after each write.
 * - naive: the same claims, then one UPDATE per run, as many at once as the
 *   pool has connections (10).
 *
 * Every run is a new (slice, tick) on one of the seeded slices, in a
 * shuffled slice order (the scheduler's stagger spreads them), at grid times
 * a day after the bench clock, so nothing the reads use changes. Runs pass
 * and no slice changes status (the steady state): the follow-up writes slice
 * states and checks no environment.
 */
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { randomSource } from '../randomSource';
import { createTickClaims } from '../../src/claims/createTickClaims';
import { DatabaseClaimStore } from '../../src/claims/DatabaseClaimStore';
import { TickClaimer } from '../../src/claims/TickClaimer';
import { OutageJournal, OutageMode } from '../../src/outage';
import { DatabaseStateStore } from '../../src/database/DatabaseStateStore';
import type { DesiredSlice } from '../../src/model';
import { EnvironmentTransitions } from '../../src/rollup/EnvironmentTransitions';
import { DatabaseOutbox, OutboxDispatcher } from '../../src/outbox';
import { createRunFollowUp } from '../../src/rollup/runFollowUp';
import type { DueTick } from '../../src/scheduler/types';
import { quietLogger } from '../../src/tooling/quietLogger';
import type { CompletedRun, RunRecord } from '../../src/model';

const HOUR_MS = 3_600_000;
const INSTANCE_ID = 'bench-instance';
/** Concurrent UPDATEs of the naive path: knex's default pool size. */
const NAIVE_CONCURRENCY = 10;

export type WritePath =
  | 'claim + complete'
  | 'claim + complete + slice states'
  | 'createTickClaims'
  | 'naive';

/** One measured write series. */
export interface WriteMeasurement {
  path: WritePath;
  batch: number;
  runs: number;
  ms: number;
  /** Each batch's ms, claim to last result stored. */
  batchMs: number[];
}

const CONDITIONS = [
  {
    condition: '[STATUS] == 200',
    severity: 'unhealthy' as const,
    success: true,
    display: '[STATUS] == 200',
  },
  {
    condition: '[RESPONSE_TIME] < 500',
    severity: 'degraded' as const,
    success: true,
    display: '[RESPONSE_TIME] < 500',
  },
];

function runRecord(
  tick: DueTick<DesiredSlice>,
  sinceAt: number,
  index: number,
): RunRecord {
  const slice = tick.slice;
  const durationMs = 20 + (index % 180);
  return {
    sliceId: slice.id,
    checkId: slice.checkId,
    systemRef: slice.systemRef,
    environment: slice.environment,
    scheduledAt: tick.scheduledAt,
    startedAt: tick.scheduledAt + 3,
    durationMs,
    outcome: 'pass',
    status: 'healthy',
    previousStatus: 'healthy',
    statusChanged: false,
    state: {
      status: 'healthy',
      consecutiveFailures: 0,
      consecutiveSuccesses: 100 + index,
      since: sinceAt,
      lastOutcome: 'pass',
    },
    conditions: CONDITIONS,
    lane: 'normal',
    timeoutMs: slice.timeoutMs,
    queueWaitMs: 3,
    probe: { ok: true, durationMs, status: 200 },
  };
}

/** A deterministic shuffle. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  const { int } = randomSource(seed);
  for (let i = result.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Error(`Bench outcome wrong: ${message}`);
  }
}

export class WriteBench {
  readonly #knex: Knex;
  readonly #slices: DesiredSlice[];
  readonly #base: number;
  readonly #store: Promise<DatabaseClaimStore>;
  readonly #states: DatabaseStateStore;
  readonly #followUp: ReturnType<typeof createRunFollowUp>;
  /** Each series gets its own hour of grid times. */
  #series = 0;

  constructor(knex: Knex, slices: readonly DesiredSlice[], now: number) {
    this.#knex = knex;
    this.#slices = shuffled(slices, 42);
    this.#base = Math.ceil((now + 24 * HOUR_MS) / HOUR_MS) * HOUR_MS;
    this.#store = DatabaseClaimStore.create({
      database: { getClient: async () => knex, migrations: { skip: true } },
    });
    this.#states = new DatabaseStateStore(knex);
    const logger = quietLogger('bench writes');
    this.#followUp = createRunFollowUp({
      store: this.#states,
      transitions: new EnvironmentTransitions({
        store: this.#states,
        logger,
        // Written as in production; nobody delivers them here.
        outbox: new OutboxDispatcher({
          outbox: new DatabaseOutbox(knex),
          instanceId: 'bench-writes',
          logger,
        }),
      }),
      logger,
    });
  }

  /** `runs` runs in batches of `batch` through one path. */
  async measure(
    path: WritePath,
    batch: number,
    runs: number,
  ): Promise<WriteMeasurement> {
    const store = await this.#store;
    const from = this.#base + this.#series * HOUR_MS;
    this.#series += 1;
    const sliceCount = this.#slices.length;
    check(
      Math.ceil(runs / sliceCount) * 30_000 < HOUR_MS,
      `${runs} runs do not fit in one hour of ticks`,
    );
    const tickAt = (k: number): DueTick<DesiredSlice> => {
      const slice = this.#slices[k % sliceCount];
      return {
        sliceId: slice.id,
        scheduledAt: from + Math.floor(k / sliceCount) * 30_000 + (k % 30_000),
        generation: 1,
        slice,
      };
    };
    const results =
      path === 'createTickClaims'
        ? new OutageMode({
            instanceId: INSTANCE_ID,
            store,
            journal: new OutageJournal({ maxEntries: runs }),
            afterWrite: records => this.#followUp(records),
            logger: quietLogger('bench results'),
          })
        : undefined;
    const claims = results
      ? createTickClaims({
          claimer: new TickClaimer({
            store,
            membership: { instanceId: INSTANCE_ID, isOwner: () => true },
            logger: quietLogger('bench claims'),
          }),
          store,
          membership: { instanceId: INSTANCE_ID },
          results,
        })
      : undefined;

    const batchMs: number[] = [];
    const start = performance.now();
    for (let at = 0; at < runs; at += batch) {
      const ticks = Array.from({ length: Math.min(batch, runs - at) }, (_, i) =>
        tickAt(at + i),
      );
      const batchStart = performance.now();
      if (claims) {
        const won = await claims.claim(ticks);
        check(
          won.length === ticks.length,
          `claimed ${won.length} of ${ticks.length}`,
        );
        await Promise.all(
          won.map((tick, i) => claims.complete(runRecord(tick, from, at + i))),
        );
        // Results are written behind the probes; the batch ends when they are.
        await results!.flush();
      } else {
        const won = await store.claimTicks(INSTANCE_ID, ticks, from);
        check(
          won.length === ticks.length,
          `claimed ${won.length} of ${ticks.length}`,
        );
        const records = won.map((tick, i) => runRecord(tick, from, at + i));
        if (path === 'naive') {
          await this.#naiveComplete(records);
        } else {
          const updated = await store.writeRuns(INSTANCE_ID, records, at);
          check(
            updated === records.length,
            `completed ${updated} of ${records.length}`,
          );
          if (path === 'claim + complete + slice states') {
            await this.#followUp(records);
          }
        }
      }
      batchMs.push(performance.now() - batchStart);
    }
    const ms = performance.now() - start;

    const [{ count }] = await this.#knex('healthcheck_runs')
      .where('scheduled_at', '>=', from)
      .andWhere('scheduled_at', '<', from + HOUR_MS)
      .whereNotNull('started_at')
      .count({ count: '*' });
    check(
      Number(count) === runs,
      `${path}, batches of ${batch}: ${count} runs stored, not ${runs}`,
    );
    if (path !== 'claim + complete' && path !== 'naive') {
      const [{ states }] = await this.#knex('healthcheck_slice_states')
        .where('last_scheduled_at', '>=', from)
        .count({ states: '*' });
      check(
        Number(states) === Math.min(runs, sliceCount),
        `${path}: ${states} slice states written, not ${Math.min(
          runs,
          sliceCount,
        )}`,
      );
    }
    return { path, batch, runs, ms, batchMs };
  }

  /** One UPDATE per run, NAIVE_CONCURRENCY at a time. */
  async #naiveComplete(records: readonly CompletedRun[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < records.length) {
        const run = records[next++];
        const updated = await this.#knex('healthcheck_runs')
          .where({ slice_id: run.sliceId, scheduled_at: run.scheduledAt })
          .update({
            started_at: run.startedAt,
            duration_ms: run.durationMs,
            outcome: run.outcome,
            status: run.status,
            conditions: JSON.stringify(run.conditions),
            error_kind: null,
            error_message: null,
            lane: run.lane,
            timeout_ms: run.timeoutMs,
          });
        check(
          updated === 1,
          `naive update of ${run.sliceId} hit ${updated} rows`,
        );
      }
    };
    await Promise.all(
      Array.from({ length: NAIVE_CONCURRENCY }, () => worker()),
    );
  }
}
