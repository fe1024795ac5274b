import type { ProbeType } from '@vigil/plugin-healthcheck-node';
import { createDnsProbeType } from './dnsProbe';
import { createHttpProbeType } from './httpProbe';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';
import { createTcpProbeType } from './tcpProbe';
import { createTlsProbeType } from './tlsProbe';

/**
 * The probe types the backend brings: `http`, `tcp`, `dns` and `tls`, all
 * under the same network policy and secrets.
 * @public
 */
export function createBuiltinProbeTypes(
  options: BuiltinProbeTypeOptions,
): ProbeType<any>[] {
  return [
    createHttpProbeType(options),
    createTcpProbeType(options),
    createDnsProbeType(options),
    createTlsProbeType(options),
  ];
}
