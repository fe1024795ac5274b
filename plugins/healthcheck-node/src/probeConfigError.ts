/**
 * A check whose configuration cannot run: a bad target, a pattern that does
 * not compile, a secret that no longer exists. Reported with kind `config`.
 * @public
 */
export class ProbeConfigError extends Error {
  readonly code = 'EVIGIL_PROBE_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'ProbeConfigError';
  }
}
