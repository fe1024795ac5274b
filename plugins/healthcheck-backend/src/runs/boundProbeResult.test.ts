import type { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { boundProbeResult } from './boundProbeResult';

describe('boundProbeResult', () => {
  it('leaves a result within every bound as it is', () => {
    const result: ProbeResult = {
      ok: false,
      durationMs: 12,
      status: 503,
      body: 'x'.repeat(100_000),
      dnsAnswers: ['10.0.0.1'],
      timings: { dns: 1, connect: 2 },
      error: { kind: 'other', message: 'Service Unavailable' },
    };
    expect(boundProbeResult(result)).toEqual(result);
    // Not even copied: a run's result goes through here on every probe.
    expect(boundProbeResult(result)).toBe(result);
  });

  it('cuts what a hostile peer or a module could make huge, saying where', () => {
    const certificate = {
      subject: `CN=${'a'.repeat(5000)}`,
      issuer: 'CN=issuer',
      validFrom: '2026-01-01T00:00:00Z',
      validTo: '2027-01-01T00:00:00Z',
      serialNumber: '01',
      fingerprint256: 'AB',
      subjectAltName: `DNS:${'b'.repeat(5000)}`,
    };
    const bounded = boundProbeResult({
      ok: false,
      durationMs: 1,
      error: { kind: 'other', message: 'e'.repeat(10_000) },
      dnsAnswers: Array.from({ length: 500 }, () => 't'.repeat(2000)),
      timings: Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [`phase${i}`, i]),
      ),
      certificate: {
        authorized: false,
        chain: Array.from({ length: 50 }, () => certificate),
      },
    });

    expect(bounded.error!.message).toHaveLength(2048 + '…(cut)'.length);
    expect(bounded.error!.message.endsWith('…(cut)')).toBe(true);
    expect(bounded.dnsAnswers).toHaveLength(100);
    expect(bounded.dnsAnswers![0]).toHaveLength(512 + '…(cut)'.length);
    expect(Object.keys(bounded.timings!)).toHaveLength(16);
    expect(bounded.certificate!.chain).toHaveLength(10);
    expect(bounded.certificate!.chain[0].subject).toHaveLength(
      1024 + '…(cut)'.length,
    );
    expect(bounded.certificate!.chain[0].issuer).toBe('CN=issuer');
  });

  it('cuts the serial number and dates of a certificate, which a hostile issuer writes too', () => {
    const [leaf] = boundProbeResult({
      ok: true,
      durationMs: 1,
      certificate: {
        authorized: false,
        chain: [
          {
            subject: 'CN=leaf',
            issuer: 'CN=leaf',
            validFrom: 'not a date '.repeat(1000),
            validTo: '2027-01-01T00:00:00.000Z',
            serialNumber: 'f'.repeat(100_000),
            fingerprint256: 'AB',
          },
        ],
      },
    }).certificate!.chain;

    expect(leaf.serialNumber).toHaveLength(1024 + '…(cut)'.length);
    expect(leaf.validFrom).toHaveLength(1024 + '…(cut)'.length);
    expect(leaf.validTo).toBe('2027-01-01T00:00:00.000Z');
  });
});
