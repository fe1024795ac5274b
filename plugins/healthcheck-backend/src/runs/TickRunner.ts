import { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import { LoggerService } from '@backstage/backend-plugin-api';
import { toError } from '@backstage/errors';
import { Bulkhead, DeferReason, endpointKeyOf } from '../admission';
import {
  applyRunOutcome,
  initialSliceStatusState,
  SliceStatusState,
} from '../judge';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { claimDueTicks } from '../claims/claimDueTicks';
import { DueTick } from '../scheduler';
import { boundProbeResult } from './boundProbeResult';
import { compiledConditionsOf, judgeProbeResult } from './judgeProbeResult';
import { type NotJudgedReason, stoppedProbe, TickNotJudged } from './notJudged';
import { noopRunMetrics, RunMetrics } from './runMetrics';
import type {
  ClaimedRunNow,
  RunnableSlice,
  RunRecord,
  SliceStateStore,
  TickClaims,
} from '../model';

/** A probe that ignores its signal is given this long before it is abandoned. */
const ABANDON_GRACE_MS = 50;

/** Ticks not judged are logged at most this often per reason, with a count. */
const NOT_JUDGED_LOG_EVERY_MS = 60_000;

/**
 * A run of a slice asked for now: its id, whether it is one already under
 * way (joined), and its record once it has one (`undefined` when the run
 * joined runs on another instance or the bulkhead deferred it).
 */
export interface RunNowStarted {
  /** `<sliceId>@<epoch ms>`: the slice and the time the run is recorded at. */
  readonly runId: string;
  readonly joined: boolean;
  readonly done: Promise<RunRecord | undefined>;
}

/** The run of a slice under way on this instance: at most one a slice. */
interface RunUnderWay {
  /** Asked for now (by a person), not a scheduled tick. */
  readonly oneOff: boolean;
  /** Its slice was removed meanwhile: forget what its end records. */
  forgetWhenDone?: boolean;
  /** Its id once known (a run now learns it from its claim). */
  readonly runId: Promise<string>;
  done: Promise<RunRecord | undefined>;
}

const endpointKeys = new WeakMap<RunnableSlice, string>();

/**
 * The endpoint a slice's target reaches, worked out at its first run and
 * kept while the slice is loaded (a reloaded slice is a new object): a URL
 * parse per probe otherwise.
 */
function endpointKeyOfSlice(slice: RunnableSlice): string {
  let key = endpointKeys.get(slice);
  if (key === undefined) {
    key = endpointKeyOf(slice.target);
    endpointKeys.set(slice, key);
  }
  return key;
}

function runIdOf(tick: { sliceId: string; scheduledAt: number }): string {
  return `${tick.sliceId}@${tick.scheduledAt}`;
}

/** Counters of a running {@link TickRunner}, cumulative since start. */
export interface TickRunnerStats {
  runs: number;
  staleTicks: number;
  /** Due ticks another instance owned or claimed first. */
  notClaimed: number;
  deferred: Record<DeferReason, number>;
  /** Ticks that recorded nothing because Vigil could not judge them. */
  notJudged: Record<NotJudgedReason, number>;
}

/**
 * Runs the ticks the scheduler hands over: drops stale ones, asks the
 * bulkhead whether each may probe now, probes, judges, and reports the run.
 * A stale or deferred tick records nothing, and neither does one Vigil
 * could not judge (its probe's database read failed, or the instance cut
 * the probe short as it stopped): no failure, no status change.
 */
export class TickRunner<TSlice extends RunnableSlice = RunnableSlice> {
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
  /** Entries live while their run does, so there are at most one a slice. */
  readonly #underWay = new Map<string, RunUnderWay>();
  readonly #stats: TickRunnerStats = {
    runs: 0,
    staleTicks: 0,
    notClaimed: 0,
    deferred: { in_flight: 0, lane_full: 0, no_slot: 0 },
    notJudged: { database: 0, stopping: 0 },
  };
  /** When ticks not judged were last logged, and how many since, by reason. */
  readonly #notJudgedLog: Record<
    NotJudgedReason,
    { loggedAt: number; unlogged: number }
  > = {
    database: { loggedAt: -Infinity, unlogged: 0 },
    stopping: { loggedAt: -Infinity, unlogged: 0 },
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
    this.#states = options.states ?? inMemorySliceStates();
    this.#onRun = options.onRun ?? (() => {});
    this.#claims = options.claims;
    this.#metrics = options.metrics ?? noopRunMetrics;
    const clock = options.clock ?? Date;
    this.#now = () => clock.now();
  }

  /**
   * The scheduler's executor: each tick of the batch with its run, keyed by
   * the tick itself (a stale tick's run ends at once). With claims, the
   * fresh ticks of the batch are claimed in one go ({@link claimDueTicks})
   * and only the won ones run.
   */
  readonly execute = (
    batch: ReadonlyArray<DueTick<TSlice>>,
  ): Map<DueTick<TSlice>, Promise<RunRecord | undefined>> => {
    const claims = this.#claims;
    if (!claims) {
      const prepared = this.#prepareStates(batch);
      return new Map(
        batch.map(tick => [tick, prepared.then(() => this.runTick(tick))]),
      );
    }
    const runs = new Map<DueTick<TSlice>, Promise<RunRecord | undefined>>();
    const fresh: Array<DueTick<TSlice>> = [];
    for (const tick of batch) {
      if (!this.#isFresh(tick)) {
        this.#stats.staleTicks++;
        runs.set(tick, Promise.resolve(undefined));
        continue;
      }
      fresh.push(tick);
    }
    const won = claimDueTicks(claims, fresh).then(async list => {
      await this.#prepareStates(list.map(({ claimed }) => claimed));
      return new Map(list.map(({ due, claimed }) => [due, claimed]));
    });
    for (const tick of fresh) {
      runs.set(
        tick,
        won.then(wonTicks => {
          const claimed = wonTicks.get(tick);
          if (!claimed) {
            this.#stats.notClaimed++;
            return undefined;
          }
          return this.runTick(claimed, tick.scheduledAt);
        }),
      );
    }
    return runs;
  };

  /**
   * Runs a slice once now, off its schedule (run now), through the bulkhead
   * like any tick, on this instance whichever owns the slice. A slice runs
   * once at a time: while a run of it is under way (here, asked for now or
   * scheduled, or on another instance as its claims show) the answer is that
   * run (`joined`), and a scheduled tick that falls due meanwhile is deferred
   * (or, on another instance, finds its tick held). Resolves once the run
   * has its id; `done` resolves when it is recorded.
   */
  async runNow(
    slice: TSlice,
    at: number = this.#now(),
  ): Promise<RunNowStarted> {
    const underWay = this.#underWay.get(slice.id);
    if (underWay) {
      return { runId: await underWay.runId, joined: true, done: underWay.done };
    }
    let claimed!: Promise<ClaimedRunNow>;
    const runId = new Promise<string>((resolve, reject) => {
      claimed = this.#claimNow(slice, at);
      claimed.then(
        claim => resolve(runIdOf({ sliceId: slice.id, ...claim })),
        reject,
      );
    });
    const done = this.#whileUnderWay(slice.id, true, runId, async () => {
      const claim = await claimed.catch(() => undefined);
      if (!claim?.claimed) {
        return undefined;
      }
      const tick: DueTick<TSlice> = {
        sliceId: slice.id,
        scheduledAt: claim.scheduledAt,
        generation: -1,
        slice,
      };
      try {
        await this.#prepareStates([tick]);
        return await this.#admitAndRun(tick, at);
      } finally {
        await claim.releaseHolds();
      }
    });
    const claim = await claimed;
    return { runId: await runId, joined: !claim.claimed, done };
  }

  /** Without claims across instances, every run now is this instance's. */
  #claimNow(slice: TSlice, at: number): Promise<ClaimedRunNow> {
    if (this.#claims) {
      return this.#claims.claimNow(slice, at);
    }
    return Promise.resolve({
      scheduledAt: at,
      claimed: true,
      releaseHolds: async () => {},
    });
  }

  /** Runs `run` as the slice's run under way, which it is until it settles. */
  #whileUnderWay(
    sliceId: string,
    oneOff: boolean,
    runId: Promise<string>,
    run: () => Promise<RunRecord | undefined>,
  ): Promise<RunRecord | undefined> {
    // A run now whose claim failed has no id; its joiners are told so.
    runId.catch(() => {});
    const entry: RunUnderWay = {
      oneOff,
      runId,
      done: Promise.resolve(undefined),
    };
    this.#underWay.set(sliceId, entry);
    entry.done = run().finally(() => {
      if (this.#underWay.get(sliceId) === entry) {
        this.#underWay.delete(sliceId);
      }
      if (entry.forgetWhenDone) {
        this.#states.forget?.([sliceId]);
      }
    });
    return entry.done;
  }

  /**
   * Forgets slices that were removed: their states and their history in the
   * bulkhead (a run under way forgets its state when it ends).
   */
  forget(sliceIds: readonly string[]): void {
    this.#states.forget?.(sliceIds);
    for (const sliceId of sliceIds) {
      this.#bulkhead.forget(sliceId);
      const underWay = this.#underWay.get(sliceId);
      if (underWay) {
        underWay.forgetWhenDone = true;
      }
    }
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

  stats(): TickRunnerStats {
    return {
      ...this.#stats,
      deferred: { ...this.#stats.deferred },
      notJudged: { ...this.#stats.notJudged },
    };
  }

  /**
   * Aborts every probe in flight; the ones that fail for it are not
   * judged (the stop is Vigil's doing, not the target's).
   */
  abortAll(): void {
    this.#shutdown.abort();
  }

  #isFresh(tick: DueTick<TSlice>): boolean {
    return this.#isCurrent(tick) && this.#isEffective(tick.slice);
  }

  /**
   * Runs one scheduled tick. `dueAt` is when it fell due, if not its grid
   * time (a first probe between grid points); queue wait is measured from
   * it. While a run now of the slice is under way the tick is deferred: that
   * run stands for it.
   */
  async runTick(
    tick: DueTick<TSlice>,
    dueAt: number = tick.scheduledAt,
  ): Promise<RunRecord | undefined> {
    if (!this.#isFresh(tick)) {
      // It went stale while its claim was taken: it runs nowhere.
      this.#stats.staleTicks++;
      await this.#giveBackClaim(tick);
      return undefined;
    }
    const underWay = this.#underWay.get(tick.sliceId);
    if (underWay?.oneOff) {
      await this.#defer(tick, 'in_flight');
      return undefined;
    }
    if (underWay) {
      // The scheduler runs one tick of a slice at a time; a tick of an
      // earlier generation may still be finishing.
      return await this.#admitAndRun(tick, dueAt);
    }
    return await this.#whileUnderWay(
      tick.sliceId,
      false,
      Promise.resolve(runIdOf(tick)),
      () => this.#admitAndRun(tick, dueAt),
    );
  }

  /** A deferred tick records nothing, not even its claim. */
  async #defer(tick: DueTick<TSlice>, reason: DeferReason): Promise<void> {
    this.#stats.deferred[reason]++;
    await this.#giveBackClaim(tick);
  }

  /**
   * A tick Vigil could not judge records nothing either, and leaves the
   * slice's state (its failure streak) as it was; it is counted, and said
   * in the log at most once a minute per reason.
   */
  async #notJudged(
    tick: DueTick<TSlice>,
    notJudged: TickNotJudged,
  ): Promise<void> {
    const { reason } = notJudged;
    this.#stats.notJudged[reason]++;
    this.#metrics.recordUnjudged?.(reason);
    const log = this.#notJudgedLog[reason];
    const now = this.#now();
    if (now - log.loggedAt >= NOT_JUDGED_LOG_EVERY_MS) {
      this.#logger.warn(
        `Tick of ${tick.sliceId} not judged (${reason}): ${
          notJudged.message
        }; no run recorded, its status stays${
          log.unlogged > 0
            ? `; ${log.unlogged} more tick(s) not judged for this since the last such line`
            : ''
        }`,
      );
      log.loggedAt = now;
      log.unlogged = 0;
    } else {
      log.unlogged++;
    }
    await this.#giveBackClaim(tick);
  }

  /** Releases the claim row of a tick that does not run (none without claims). */
  async #giveBackClaim(tick: DueTick<TSlice>): Promise<void> {
    await this.#claims
      ?.release([{ sliceId: tick.sliceId, scheduledAt: tick.scheduledAt }])
      .catch(error =>
        this.#logger.warn(
          `Could not give back the claim of ${tick.sliceId}`,
          toError(error),
        ),
      );
  }

  /** Asks the bulkhead, probes, judges and records; or defers. */
  async #admitAndRun(
    tick: DueTick<TSlice>,
    dueAt: number,
  ): Promise<RunRecord | undefined> {
    const slice = tick.slice;
    const probeType = this.#probeTypes.get(slice.type);

    let probeResult: ProbeResult | undefined;
    let verdict: ReturnType<typeof judgeProbeResult> | undefined;
    let startedAt = 0;
    // A tick that cannot be judged throws out of the work, so the
    // bulkhead learns nothing from it either.
    const work = async (timeoutMs: number) => {
      startedAt = this.#now();
      probeResult = boundProbeResult(
        await this.#probe(probeType, slice, timeoutMs),
      );
      verdict = judgeProbeResult(probeResult, compiledConditionsOf(slice));
      return {
        outcome: verdict.outcome,
        durationMs: probeResult.durationMs,
        errorKind: probeResult.error?.kind,
      };
    };
    // A run now takes its turn like any tick: the same concurrency, the
    // same suspect lane.
    let admitted: Awaited<ReturnType<Bulkhead['run']>>;
    try {
      admitted = await this.#bulkhead.run(
        {
          sliceId: slice.id,
          endpointKey: endpointKeyOfSlice(slice),
          dueAt,
          timeoutMs: slice.timeoutMs,
        },
        work,
      );
    } catch (error) {
      if (error instanceof TickNotJudged) {
        await this.#notJudged(tick, error);
        return undefined;
      }
      throw error;
    }
    if (admitted.deferred) {
      await this.#defer(tick, admitted.deferred);
      return undefined;
    }
    const result = probeResult!;
    const judged = verdict!;

    // A state read that was too slow for the probe may have landed since.
    await this.#states.settled?.(slice.id);
    const previous =
      this.#states.get(slice.id) ?? initialSliceStatusState(startedAt);
    const transition = applyRunOutcome(
      previous,
      { outcome: judged.outcome, at: startedAt },
      slice.thresholds,
    );
    this.#stats.runs++;
    this.#metrics.recordRun({
      type: slice.type,
      outcome: judged.outcome,
      errorKind: result.error?.kind,
      durationMs: result.durationMs,
      status: transition.to,
      statusChanged: transition.changed,
    });

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
    if (await this.#write(record)) {
      // The state moves on only with its write: after a failed one the next
      // run judges from the state before, so the change is seen again.
      this.#states.set(slice.id, transition.state, tick.scheduledAt);
      if (transition.changed) {
        this.#logger.info(
          `${slice.checkId} on ${slice.systemRef} in ${slice.environment}: ${transition.from} -> ${transition.to}`,
          { sliceId: slice.id },
        );
      }
    }
    return record;
  }

  /** Writes a finished run; false (and logged) when it could not be. */
  async #write(record: RunRecord): Promise<boolean> {
    try {
      await this.#claims?.complete(record);
      await this.#onRun(record);
      return true;
    } catch (error) {
      this.#logger.error(
        `Could not record a run of ${record.sliceId}; its state stays as it was`,
        toError(error),
      );
      return false;
    }
  }

  /**
   * Runs one probe within its timeout, whatever the probe does: a throw
   * becomes an error result, and a probe that ignores its signal is
   * abandoned shortly after the deadline. Throws {@link TickNotJudged} when
   * the probe says so, or failed once the instance had begun to stop.
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
    // The probe's signal aborts at its deadline or on shutdown. One
    // controller and one timer, cleared when the probe answers:
    // AbortSignal.timeout's timer cannot be cleared and makes a
    // DOMException, stack and all, when it fires after every probe, and
    // AbortSignal.any tracks its sources per probe; together a few percent
    // of an instance's CPU at hundreds of probes a second.
    const deadline = new AbortController();
    const shutdown = this.#shutdown.signal;
    let stoppedBeforeAnswer = false;
    const onShutdown = () => {
      // A probe already past its own deadline failed on its own.
      stoppedBeforeAnswer ||= !deadline.signal.aborted;
      deadline.abort(shutdown.reason);
    };
    if (shutdown.aborted) {
      onShutdown();
    } else {
      shutdown.addEventListener('abort', onShutdown, { once: true });
    }
    const signal = deadline.signal;
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<ProbeResult>(resolve => {
      timer = setTimeout(() => {
        deadline.abort(
          new DOMException(`${timeoutMs} ms have passed`, 'TimeoutError'),
        );
        // Told to stop; a probe that ignores it is abandoned after a grace.
        timer = setTimeout(
          () =>
            resolve({
              ok: false,
              durationMs: elapsed(),
              error: {
                kind: 'timeout',
                message: `No answer within ${timeoutMs} ms`,
              },
            }),
          ABANDON_GRACE_MS,
        );
      }, timeoutMs);
    });
    try {
      const result = await Promise.race([
        probeType
          .run({
            target: slice.target,
            config: slice.config,
            timeoutMs,
            signal,
          })
          .catch((error): ProbeResult => {
            if (error instanceof TickNotJudged) {
              throw error;
            }
            return {
              ok: false,
              durationMs: elapsed(),
              error: {
                kind: signal.aborted ? 'timeout' : 'other',
                message: String(error?.message ?? error),
              },
            };
          }),
        abandoned,
      ]);
      const stopped = stoppedProbe(result, stoppedBeforeAnswer);
      if (stopped) {
        throw stopped;
      }
      return result;
    } finally {
      clearTimeout(timer);
      shutdown.removeEventListener('abort', onShutdown);
    }
  }
}

/** Slice states in memory only, for a runner without a durable store. */
function inMemorySliceStates(): SliceStateStore {
  const states = new Map<string, SliceStatusState>();
  return {
    get: sliceId => states.get(sliceId),
    set: (sliceId, state) => {
      states.set(sliceId, state);
    },
    forget: sliceIds => {
      for (const sliceId of sliceIds) {
        states.delete(sliceId);
      }
    },
  };
}
