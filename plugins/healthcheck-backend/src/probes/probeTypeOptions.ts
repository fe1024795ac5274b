import type { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import type { AddressResolver } from './CaresAddressResolver';
import type { NetworkPolicy } from './networkGuard';

/**
 * What the built-in probe types are made from.
 * @public
 */
export interface BuiltinProbeTypeOptions {
  /** Which non-public addresses probes may reach; see `readNetworkPolicy`. */
  networkPolicy: NetworkPolicy;
  /** `healthcheck.secrets`, for `${secret:NAME}` and for redaction. */
  secrets: ProbeSecrets;
  /**
   * How hostnames become addresses before the guard judges them; by default
   * c-ares with the system's hosts file and search list, off libuv's thread
   * pool (see CaresAddressResolver). Never `dns.lookup`.
   */
  resolve?: AddressResolver;
}
