import type { ProbeResult } from '@vigil/plugin-healthcheck-node';

/**
 * The most of each part of a probe result that is judged, stored with the
 * run and shown. Targets are anyone's servers and probe types may come from
 * modules, so nothing they report may grow a run row without limit.
 * @internal
 */
export const PROBE_RESULT_BOUNDS = {
  /** Characters of an error message. */
  errorMessage: 2048,
  /** Certificates of a chain, leaf first. */
  certificates: 10,
  /** Characters of each certificate text field (subject, issuer, names, serial, dates). */
  certificateText: 1024,
  /** DNS answers, and characters of each. */
  dnsAnswers: 100,
  dnsAnswer: 512,
  /** Phases of `timings`. */
  timings: 16,
} as const;

/**
 * A probe result with every part that a target or a module controls cut to
 * {@link PROBE_RESULT_BOUNDS}, marked where cut. The body is left alone: it
 * is judged, never stored, and each probe type caps what it reads.
 * @internal
 */
export function boundProbeResult(result: ProbeResult): ProbeResult {
  const bounds = PROBE_RESULT_BOUNDS;
  if (withinBounds(result)) {
    // Nearly every result: nothing to copy.
    return result;
  }
  const bounded: ProbeResult = { ...result };
  if (result.error && result.error.message.length > bounds.errorMessage) {
    bounded.error = {
      ...result.error,
      message: cut(result.error.message, bounds.errorMessage),
    };
  }
  if (result.dnsAnswers) {
    bounded.dnsAnswers = result.dnsAnswers
      .slice(0, bounds.dnsAnswers)
      .map(answer => cut(answer, bounds.dnsAnswer));
  }
  if (result.timings && keyCount(result.timings) > bounds.timings) {
    bounded.timings = Object.fromEntries(
      Object.entries(result.timings).slice(0, bounds.timings),
    );
  }
  if (result.certificate) {
    bounded.certificate = {
      ...result.certificate,
      ...(result.certificate.authorizationError !== undefined && {
        authorizationError: cut(
          result.certificate.authorizationError,
          bounds.certificateText,
        ),
      }),
      chain: result.certificate.chain
        .slice(0, bounds.certificates)
        .map(certificate => ({
          ...certificate,
          subject: cut(certificate.subject, bounds.certificateText),
          issuer: cut(certificate.issuer, bounds.certificateText),
          // A serial is an integer of any length to a hostile issuer, and
          // a date that does not parse is kept as the peer wrote it.
          serialNumber: cut(certificate.serialNumber, bounds.certificateText),
          validFrom: cut(certificate.validFrom, bounds.certificateText),
          validTo: cut(certificate.validTo, bounds.certificateText),
          ...(certificate.subjectAltName !== undefined && {
            subjectAltName: cut(
              certificate.subjectAltName,
              bounds.certificateText,
            ),
          }),
        })),
    };
  }
  return bounded;
}

/**
 * Whether nothing of a result needs cutting: no error message, DNS answer
 * or timing beyond its bound, and no certificate (whose many fields are
 * cut one by one).
 */
function withinBounds(result: ProbeResult): boolean {
  const bounds = PROBE_RESULT_BOUNDS;
  return (
    (result.error === undefined ||
      result.error.message.length <= bounds.errorMessage) &&
    (result.dnsAnswers === undefined ||
      (result.dnsAnswers.length <= bounds.dnsAnswers &&
        result.dnsAnswers.every(
          answer => answer.length <= bounds.dnsAnswer,
        ))) &&
    (result.timings === undefined ||
      keyCount(result.timings) <= bounds.timings) &&
    result.certificate === undefined
  );
}

/** An object's own enumerable keys, counted without listing them. */
function keyCount(object: object): number {
  let count = 0;
  for (const key in object) {
    if (Object.prototype.hasOwnProperty.call(object, key)) {
      count++;
    }
  }
  return count;
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…(cut)` : text;
}
