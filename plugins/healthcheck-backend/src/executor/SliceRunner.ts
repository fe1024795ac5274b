import { LoggerService } from '@backstage/backend-plugin-api';
import { toError } from '@backstage/errors';
import {
  ConditionSpec,
  JudgedCondition,
} from '@vigil/plugin-healthcheck-common';
import {
  ProbeErrorKind,
  ProbeResult,
  ProbeType,
} from '@vigil/plugin-healthcheck-node';
import { Bulkhead, DeferReason, endpointKeyOf, Lane } from '../admission';
import {
  applyRunOutcome,
  initialSliceStatusState,
  RunOutcome,
  SliceStatus,
  SliceStatusState,
  StatusThresholds,
} from '../judge';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { claimKeyAt, DueTick, ScheduledSlice } from '../scheduler';
import { boundProbeResult } from './boundProbeResult';
import { judgeProbeResult } from './judgeProbeResult';
import { noopRunMetrics, RunMetrics } from './runMetrics';

/** A probe that ignores its signal is given this long before it is abandoned. */
const ABANDON_GRACE_MS = 50;

/**
 * A slice as the runner needs it: what to probe, how to judge it.
 */
export interface RunnableSlice extends ScheduledSlice {
  readonly checkId: string;
  readonly systemRef: string;
  readonly environment: string;
  /** The probe type, such as `http`. */
  readonly type: string;
  /** The target, already rendered for the system and environment. */
  readonly target: string;
  readonly timeoutMs: number;
  /** The probe type's own fields. */
  readonly config: Record<string, unknown>;
  readonly conditions: readonly ConditionSpec[];
  /** Unset fields take the defaults (2 failures, 1 success). */
  readonly thresholds?: Partial<StatusThresholds>;
}

/** One run of one slice at one scheduled tick, as recorded. */
export interface RunRecord {
  readonly sliceId: string;
  readonly checkId: string;
  readonly systemRef: string;
  readonly environment: string;
  /** The grid time of the tick (epoch ms). */
  readonly scheduledAt: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly outcome: RunOutcome;
  readonly status: SliceStatus;
  readonly previousStatus: SliceStatus;
  readonly statusChanged: boolean;
  /** The slice's judged state after this run. */
  readonly state: SliceStatusState;
  readonly conditions: readonly JudgedCondition[];
  readonly error?: { kind: ProbeErrorKind; message: string };
  readonly lane: Lane;
  /** The timeout this run had: the configured one, or shrunk by the bulkhead. */
  readonly timeoutMs: number;
  /** From due time to start. */
  readonly queueWaitMs: number;
  readonly probe: Omit<ProbeResult, 'body'>;
}

/** Where a slice's status lives between runs. */
export interface SliceStateStore {
  get(sliceId: string): SliceStatusState | undefined;
  /** `scheduledAt` is the grid time of the run the state follows. */
  set(sliceId: string, state: SliceStatusState, scheduledAt: number): void;
  /**
   * Makes `get` current for ticks about to run, in one round trip: a state
   * another instance wrote since is read here.
   */
  prepare?(
    ticks: ReadonlyArray<{
      sliceId: string;
      scheduledAt: number;
      intervalMs: number;
    }>,
  ): Promise<void>;
}

/**
 * Where ticks are claimed when several instances share the work: only a tick
 * this instance claimed runs, a deferred one is given back, and a finished
 * one has its result written into its claimed run.
 */
export interface TickClaims {
  /** Of these ticks (keyed by `claimKeyAt`), the ones this instance won. */
  claim<T extends DueTick<ScheduledSlice>>(
    ticks: ReadonlyArray<T>,
  ): Promise<T[]>;
  release(
    ticks: ReadonlyArray<{ sliceId: string; scheduledAt: number }>,
  ): Promise<void>;
  complete(record: RunRecord): Promise<void>;
}

/** Counters of a running {@link SliceRunner}, cumulative since start. */
export interface SliceRunnerStats {
  runs: number;
  staleTicks: number;
  /** Due ticks another instance owned or claimed first. */
  notClaimed: number;
  deferred: Record<DeferReason, number>;
}

/**
 * Runs the ticks the scheduler hands over: drops stale ones, asks the
 * bulkhead whether each may probe now, probes, judges, and reports the run.
 * A stale or deferred tick records nothing.
 */
export class SliceRunner<TSlice extends RunnableSlice = RunnableSlice> {
  readonly #probeTypes: ProbeTypeRegistry;
  readonly #bulkhead: Bulkhead;
  readonly #logger: LoggerService;
  readonly #now: () => number;
  readonly #isCurrent: (tick: DueTick<TSlice>) => boolean;
  readonly #isEffective: (slice: TSlice) => boolean;
  readonly #states: SliceStateStore;
  readonly #onRun: (record: RunRecord) => void | Promise<void>;
  readonly #claims: TickClaims | undefined;
  readonly #metrics: RunMetrics;
  readonly #shutdown = new AbortController();
  readonly #stats: SliceRunnerStats = {
    runs: 0,
    staleTicks: 0,
    notClaimed: 0,
    deferred: { in_flight: 0, lane_full: 0, no_slot: 0 },
  };

  constructor(options: {
    probeTypes: ProbeTypeRegistry;
    bulkhead: Bulkhead;
    logger: LoggerService;
    /** Whether the tick's generation is still the slice's current one. */
    isCurrent: (tick: DueTick<TSlice>) => boolean;
    /** Whether the slice's environment is still effective; default yes. */
    isEffective?: (slice: TSlice) => boolean;
    states?: SliceStateStore;
    onRun?: (record: RunRecord) => void | Promise<void>;
    /** Claims across instances; without it, every due tick runs here. */
    claims?: TickClaims;
    metrics?: RunMetrics;
    clock?: { now(): number };
  }) {
    this.#probeTypes = options.probeTypes;
    this.#bulkhead = options.bulkhead;
    this.#logger = options.logger;
    this.#isCurrent = options.isCurrent;
    this.#isEffective = options.isEffective ?? (() => true);
    this.#states = options.states ?? new Map();
    this.#onRun = options.onRun ?? (() => {});
    this.#claims = options.claims;
    this.#metrics = options.metrics ?? noopRunMetrics;
    const clock = options.clock ?? Date;
    this.#now = () => clock.now();
  }

  /**
   * The scheduler's executor: one tracked promise per tick. With claims,
   * the fresh ticks of the batch are claimed in one go (keyed by their grid
   * tick, the same on every instance) and only the won ones run.
   */
  readonly execute = (
    batch: ReadonlyArray<DueTick<TSlice>>,
  ): Promise<RunRecord | undefined>[] => {
    const claims = this.#claims;
    if (!claims) {
      const prepared = this.#prepareStates(batch);
      return batch.map(tick => prepared.then(() => this.runTick(tick)));
    }
    const fresh = batch.filter(tick => this.#isFresh(tick));
    this.#stats.staleTicks += batch.length - fresh.length;
    const keyed = fresh.map(tick => ({
      tick,
      scheduledAt: claimKeyAt(
        tick.sliceId,
        tick.scheduledAt,
        tick.slice.intervalMs,
      ),
      sliceId: tick.sliceId,
      generation: tick.generation,
      slice: tick.slice,
    }));
    const won = claims.claim(keyed).then(async list => {
      await this.#prepareStates(list);
      return new Set(list);
    });
    return keyed.map(async key => {
      if (!(await won).has(key)) {
        this.#stats.notClaimed++;
        return undefined;
      }
      return this.runTick(
        { ...key.tick, scheduledAt: key.scheduledAt },
        key.tick.scheduledAt,
      );
    });
  };

  /**
   * Runs a slice once now, off its schedule and past the bulkhead (run now).
   * With claims the run is claimed first, keyed by its own start time, so it
   * is recorded like any run. Resolves when the run is recorded.
   */
  async runOnce(
    slice: TSlice,
    at: number = this.#now(),
  ): Promise<RunRecord | undefined> {
    const tick: DueTick<TSlice> = {
      sliceId: slice.id,
      scheduledAt: at,
      generation: -1,
      slice,
    };
    if (this.#claims) {
      const [won] = await this.#claims.claim([tick]);
      if (!won) {
        return undefined;
      }
    }
    await this.#prepareStates([tick]);
    return await this.runTick(tick, at, { oneOff: true });
  }

  /** Never rejects: without a fresh state a run judges from the one it has. */
  async #prepareStates(
    ticks: ReadonlyArray<{
      sliceId: string;
      scheduledAt: number;
      slice: TSlice;
    }>,
  ): Promise<void> {
    if (!this.#states.prepare || ticks.length === 0) {
      return;
    }
    try {
      await this.#states.prepare(
        ticks.map(tick => ({
          sliceId: tick.sliceId,
          scheduledAt: tick.scheduledAt,
          intervalMs: tick.slice.intervalMs,
        })),
      );
    } catch (error) {
      this.#logger.warn(
        'Could not read the stored states of slices about to run',
        toError(error),
      );
    }
  }

  stats(): SliceRunnerStats {
    return {
      ...this.#stats,
      deferred: { ...this.#stats.deferred },
    };
  }

  /** Aborts every probe in flight; they finish as timeouts. */
  abortAll(): void {
    this.#shutdown.abort();
  }

  #isFresh(tick: DueTick<TSlice>): boolean {
    return this.#isCurrent(tick) && this.#isEffective(tick.slice);
  }

  /**
   * Runs one tick. `dueAt` is when it fell due, if not its grid time (a
   * first probe between grid points); queue wait is measured from it.
   */
  async runTick(
    tick: DueTick<TSlice>,
    dueAt: number = tick.scheduledAt,
    options: { oneOff?: boolean } = {},
  ): Promise<RunRecord | undefined> {
    const slice = tick.slice;
    if (!options.oneOff && !this.#isFresh(tick)) {
      this.#stats.staleTicks++;
      return undefined;
    }
    const probeType = this.#probeTypes.get(slice.type);

    let probeResult: ProbeResult | undefined;
    let verdict: ReturnType<typeof judgeProbeResult> | undefined;
    let startedAt = 0;
    const work = async (timeoutMs: number) => {
      startedAt = this.#now();
      probeResult = boundProbeResult(
        await this.#probe(probeType, slice, timeoutMs),
      );
      verdict = judgeProbeResult(probeResult, slice.conditions);
      return {
        outcome: verdict.outcome,
        durationMs: probeResult.durationMs,
        errorKind: probeResult.error?.kind,
      };
    };
    // A one-off run was asked for by a person: it neither waits for nor
    // counts against the bulkhead.
    const admitted = options.oneOff
      ? {
          deferred: undefined,
          lane: 'normal' as const,
          timeoutMs: slice.timeoutMs,
          queueWaitMs: 0,
          run: await work(slice.timeoutMs),
        }
      : await this.#bulkhead.run(
          {
            sliceId: slice.id,
            endpointKey: endpointKeyOf(slice.target),
            dueAt,
            timeoutMs: slice.timeoutMs,
          },
          work,
        );
    if (admitted.deferred) {
      this.#stats.deferred[admitted.deferred]++;
      // A deferred tick records nothing, not even its claim.
      await this.#claims
        ?.release([{ sliceId: slice.id, scheduledAt: tick.scheduledAt }])
        .catch(error =>
          this.#logger.warn(
            `Could not give back the claim of ${slice.id}`,
            toError(error),
          ),
        );
      return undefined;
    }
    const result = probeResult!;
    const judged = verdict!;

    const previous =
      this.#states.get(slice.id) ?? initialSliceStatusState(startedAt);
    const transition = applyRunOutcome(
      previous,
      { outcome: judged.outcome, at: startedAt },
      slice.thresholds,
    );
    this.#states.set(slice.id, transition.state, tick.scheduledAt);
    this.#stats.runs++;
    this.#metrics.recordRun({
      type: slice.type,
      outcome: judged.outcome,
      errorKind: result.error?.kind,
      durationMs: result.durationMs,
      status: transition.to,
      statusChanged: transition.changed,
    });
    if (transition.changed) {
      this.#logger.info(
        `${slice.checkId} on ${slice.systemRef} in ${slice.environment}: ${transition.from} -> ${transition.to}`,
        { sliceId: slice.id },
      );
    }

    const { body: _body, ...probe } = result;
    const record: RunRecord = {
      sliceId: slice.id,
      checkId: slice.checkId,
      systemRef: slice.systemRef,
      environment: slice.environment,
      scheduledAt: tick.scheduledAt,
      startedAt,
      durationMs: result.durationMs,
      outcome: judged.outcome,
      status: transition.to,
      previousStatus: transition.from,
      statusChanged: transition.changed,
      state: transition.state,
      conditions: judged.conditions,
      error: result.error,
      lane: admitted.lane,
      timeoutMs: admitted.timeoutMs,
      queueWaitMs: admitted.queueWaitMs,
      probe,
    };
    try {
      await this.#claims?.complete(record);
      await this.#onRun(record);
    } catch (error) {
      this.#logger.error(
        `Could not record a run of ${slice.id}`,
        toError(error),
      );
    }
    return record;
  }

  /**
   * Runs one probe within its timeout, whatever the probe does: a throw
   * becomes an error result, and a probe that ignores its signal is
   * abandoned shortly after the deadline.
   */
  async #probe(
    probeType: ProbeType<any> | undefined,
    slice: TSlice,
    timeoutMs: number,
  ): Promise<ProbeResult> {
    const started = this.#now();
    const elapsed = () => Math.max(0, this.#now() - started);
    if (!probeType) {
      return {
        ok: false,
        durationMs: 0,
        error: {
          kind: 'config',
          message: `Unknown probe type '${
            slice.type
          }'; known types: ${this.#probeTypes.list().join(', ')}`,
        },
      };
    }
    const signal = AbortSignal.any([
      this.#shutdown.signal,
      AbortSignal.timeout(timeoutMs),
    ]);
    let abandon: NodeJS.Timeout | undefined;
    const abandoned = new Promise<ProbeResult>(resolve => {
      abandon = setTimeout(
        () =>
          resolve({
            ok: false,
            durationMs: elapsed(),
            error: {
              kind: 'timeout',
              message: `No answer within ${timeoutMs} ms`,
            },
          }),
        timeoutMs + ABANDON_GRACE_MS,
      );
    });
    try {
      return await Promise.race([
        probeType
          .run({
            target: slice.target,
            config: slice.config,
            timeoutMs,
            signal,
          })
          .catch(
            (error): ProbeResult => ({
              ok: false,
              durationMs: elapsed(),
              error: {
                kind: signal.aborted ? 'timeout' : 'other',
                message: String(error?.message ?? error),
              },
            }),
          ),
        abandoned,
      ]);
    } finally {
      clearTimeout(abandon);
    }
  }
}
