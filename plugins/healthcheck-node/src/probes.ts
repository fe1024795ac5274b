import type { ProbeConfigProblem } from '@vigil/plugin-healthcheck-common';
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
  /**
   * Milliseconds per phase. The built-in types use `dns`, `connect`, `tls`,
   * `firstByte` and `total`.
   */
  timings?: Record<string, number>;
  /** Whether `body` stops at the type's cap rather than at the end of what was sent. */
  bodyTruncated?: boolean;
  /** What a TLS peer presented, for `tls` probes and `https` targets. */
  certificate?: ProbeCertificateReport;
  error?: { kind: ProbeErrorKind; message: string };
}

/**
 * One certificate of a TLS peer's chain.
 * @public
 */
export interface ProbeCertificate {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  validFrom: string;
  /** ISO 8601. */
  validTo: string;
  serialNumber: string;
  fingerprint256: string;
  subjectAltName?: string;
}

/**
 * The certificate chain a TLS peer presented, leaf first, and whether it
 * verified against the trusted authorities and the host name.
 * @public
 */
export interface ProbeCertificateReport {
  authorized: boolean;
  /** Why it did not verify: an OpenSSL or Node code such as `CERT_HAS_EXPIRED`. */
  authorizationError?: string;
  chain: ProbeCertificate[];
}

/**
 * A type of probe, such as `http` or `tcp`, that checks can name in `type`.
 * @public
 */
export interface ProbeType<TConfig = Record<string, unknown>> {
  /** The word checks use in `spec.type`: lower case letters, digits and dashes. */
  type: string;
  /**
   * JSON schema of the type's own fields, so bad checks are refused at load.
   * Give every string a `maxLength` and every list a `maxItems`: checks come
   * from every team's catalog files.
   */
  configSchema?: object;
  /**
   * What the schema cannot say, such as a pattern that must compile. Called
   * when a check is loaded (by the catalog, the API and the reconciler) with
   * a config that fits `configSchema`, never per run; empty when it is fine.
   */
  validateConfig?(config: TConfig): ProbeConfigProblem[];
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

export type { ProbeConfigProblem };
