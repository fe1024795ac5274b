import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import type { NetworkPolicy } from '../networkGuard';

/** The policy probe tests run under: loopback allowed, as the demo does. */
export const LOOPBACK_ALLOWED: NetworkPolicy = {
  allowLoopback: true,
  allowPrivate: false,
};

/** The default policy: nothing but public addresses. */
export const NOTHING_ALLOWED: NetworkPolicy = {
  allowLoopback: false,
  allowPrivate: false,
};

/** Runs one probe of a type with a fresh signal unless one is given. */
export function runProbe<TConfig>(
  probeType: ProbeType<TConfig>,
  target: string,
  config: TConfig,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ProbeResult> {
  return probeType.run({
    target,
    config,
    timeoutMs: options.timeoutMs ?? 5_000,
    signal: options.signal ?? new AbortController().signal,
  });
}
