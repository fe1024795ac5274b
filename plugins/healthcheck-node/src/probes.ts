import { createExtensionPoint } from '@backstage/backend-plugin-api';

/**
 * What a probe of one slice is given: the check's config for this slice (the
 * target already rendered for the system and environment), and the signal
 * that aborts it when its timeout passes or the backend shuts down.
 * @public
 */
export interface ProbeContext<TConfig = Record<string, unknown>> {
  target: string;
  config: TConfig;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Why a probe failed, when it did.
 * @public
 */
export type ProbeErrorKind =
  | 'timeout'
  | 'refused'
  | 'dns'
  | 'tls'
  | 'reset'
  | 'guard'
  | 'config'
  | 'other';

/**
 * What a probe observed. The condition language reads these fields.
 * @public
 */
export interface ProbeResult {
  /** Whether the transport part worked: connected, answered, in time. */
  ok: boolean;
  durationMs: number;
  status?: number;
  body?: string;
  ip?: string;
  connected?: boolean;
  certificateExpirationMs?: number;
  dnsRcode?: string;
  dnsAnswers?: string[];
  timings?: Record<string, number>;
  error?: { kind: ProbeErrorKind; message: string };
}

/**
 * A type of probe, such as `http` or `tcp`, that checks can name in `type`.
 * @public
 */
export interface ProbeType<TConfig = Record<string, unknown>> {
  /** The word checks use in `spec.type`: lower case letters, digits and dashes. */
  type: string;
  /** JSON schema of the type's own fields, so bad checks are refused at load. */
  configSchema?: object;
  run(context: ProbeContext<TConfig>): Promise<ProbeResult>;
}

/**
 * Lets backend modules add probe types to the health-check backend, the way
 * catalog modules add processors.
 * @public
 */
export interface HealthCheckProbesExtensionPoint {
  addProbeType(probeType: ProbeType<any>): void;
}

/**
 * The extension point of {@link HealthCheckProbesExtensionPoint}.
 * @public
 */
export const healthCheckProbesExtensionPoint =
  createExtensionPoint<HealthCheckProbesExtensionPoint>({
    id: 'healthcheck.probes',
  });
