/**
 * How long an outbox entry waits after its `attempts`-th failed delivery
 * (1 for the first): doubling from `baseMs` up to `maxMs`, each delay drawn
 * from its upper half so that instances retrying one receiver spread out
 * instead of arriving together when it comes back. Pure; `random` in [0, 1).
 * @internal
 */
export function retryDelay(
  attempts: number,
  options: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  const ceiling = Math.min(options.baseMs * 2 ** exponent, options.maxMs);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
