import type { ProbeResult } from '@vigil/plugin-healthcheck-node';

/**
 * Why a tick was not judged: its probe could not read what it judges from
 * Vigil's own database (`database`), or the instance was stopping and cut
 * the probe short (`stopping`). Either way the fault is Vigil's, not the
 * target's.
 * @internal
 */
export type NotJudgedReason = 'database' | 'stopping';

/**
 * Thrown by a probe type that could not observe its target because of
 * Vigil itself (the heartbeat type when its database read fails): the
 * runner records no run and changes no status for the tick, and counts it
 * as not judged.
 * @internal
 */
export class TickNotJudged extends Error {
  readonly reason: NotJudgedReason;

  constructor(reason: NotJudgedReason, message: string) {
    super(message);
    this.name = 'TickNotJudged';
    this.reason = reason;
  }
}

/**
 * Whether a probe's answer says nothing about its target: it failed after
 * the instance began to stop and aborted it. A probe that answered before
 * the stop, or succeeded regardless, is judged as usual.
 * @internal
 */
export function stoppedProbe(
  result: Pick<ProbeResult, 'ok' | 'error'>,
  stoppedBeforeAnswer: boolean,
): TickNotJudged | undefined {
  if (!stoppedBeforeAnswer || (result.ok && !result.error)) {
    return undefined;
  }
  return new TickNotJudged(
    'stopping',
    `The instance stopped while the probe ran${
      result.error ? ` (${result.error.message})` : ''
    }`,
  );
}
