import type {
  ProbeContext,
  ProbeResult,
  ProbeSecrets,
} from '@vigil/plugin-healthcheck-node';
import { performance } from 'node:perf_hooks';
import { classifyProbeError, describeProbeError } from './probeErrors';

/**
 * What a running probe has seen so far. A probe that times out still reports
 * these observations (it connected, its IP), and `phase` says what it was
 * waiting for.
 * @internal
 */
export interface ProbeProgress {
  phase: string;
  partial: Omit<Partial<ProbeResult>, 'ok' | 'durationMs' | 'error'>;
}

/**
 * Why a finished probe destroys what it still holds (the http probe's
 * clients): its work is done. Made once, its stack formatted once: a fresh
 * error per destroyed socket cost a few percent of an instance's CPU at
 * hundreds of probes a second. Never a probe's result.
 * @internal
 */
export const PROBE_FINISHED = new Error('The probe is finished');
void PROBE_FINISHED.stack;

/** A probe's own work: its result without the duration, which the runner measures. */
type ProbeWork = (
  signal: AbortSignal,
  progress: ProbeProgress,
) => Promise<Omit<ProbeResult, 'durationMs'>>;

function isTimeoutReason(reason: unknown): boolean {
  return (reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
}

/**
 * Runs a probe's work under its deadline: the result comes when the work
 * finishes, when `context.timeoutMs` has passed since the call, or when
 * `context.signal` aborts, whichever is first. The runner does not wait for
 * the work to wind down after a deadline: it aborts the work's signal, which
 * the work answers by destroying its sockets, and returns at once, so a probe
 * given 300 ms answers at 300 ms even when a socket is slow to close.
 *
 * Errors the work throws become a failed result with their kind; every text
 * in the result is redacted of secret values.
 *
 * @internal
 */
export async function runProbeWithDeadline(
  context: Pick<ProbeContext<unknown>, 'timeoutMs' | 'signal'>,
  secrets: ProbeSecrets,
  work: ProbeWork,
): Promise<ProbeResult> {
  const started = performance.now();
  const progress: ProbeProgress = { phase: 'starting', partial: {} };
  const controller = new AbortController();

  let interrupt!: (outcome: Omit<ProbeResult, 'durationMs'>) => void;
  const interrupted = new Promise<Omit<ProbeResult, 'durationMs'>>(resolve => {
    interrupt = resolve;
  });
  const timeout = () =>
    interrupt({
      ...progress.partial,
      ok: false,
      error: {
        kind: 'timeout',
        message: `Timed out after ${context.timeoutMs} ms ${progress.phase}`,
      },
    });
  const onAbort = () => {
    if (isTimeoutReason(context.signal.reason)) {
      timeout();
      return;
    }
    const reason = context.signal.reason;
    const detail =
      typeof reason?.message === 'string' ? `: ${reason.message}` : '';
    interrupt({
      ...progress.partial,
      ok: false,
      error: {
        kind: 'other',
        message: `Probe aborted ${progress.phase}${detail}`,
      },
    });
  };

  const timer = setTimeout(timeout, Math.max(0, context.timeoutMs));
  let workFinished = false;
  let outcome: Omit<ProbeResult, 'durationMs'>;
  try {
    if (context.signal.aborted) {
      onAbort();
      outcome = await interrupted;
    } else {
      context.signal.addEventListener('abort', onAbort, { once: true });
      // Async so that a synchronous throw becomes a failed result too.
      const working = (async () => work(controller.signal, progress))()
        .catch(
          (error): Omit<ProbeResult, 'durationMs'> => ({
            ...progress.partial,
            ok: false,
            error: {
              kind: classifyProbeError(error),
              message: describeProbeError(error),
            },
          }),
        )
        .finally(() => {
          workFinished = true;
        });
      outcome = await Promise.race([working, interrupted]);
    }
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
    // Work cut short is told to wind down (destroy its sockets, fail its
    // requests) after the answer, so that many probes sharing a deadline
    // are not answered late by each other's cleanup. Work that finished has
    // released what it held before it returned: telling it as well (an
    // immediate, an abort event, the controller kept alive for them) was a
    // third of the run path's own CPU.
    if (!workFinished) {
      setImmediate(() => controller.abort());
    }
  }

  const durationMs = performance.now() - started;
  const result: ProbeResult = { ...outcome, durationMs };
  if (outcome.timings) {
    result.timings = { ...outcome.timings, total: durationMs };
  }
  return secrets.redactResult(result);
}
