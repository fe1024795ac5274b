import {
  cpuPerProbeUs,
  highestSustainedRate,
  isSustained,
  pairedCostRatio,
  type RateStep,
  renderCostTable,
  renderTimeToKnowTable,
} from './probeCostReport';

const window = (cpuSeconds: number, probes: number, postgres?: number) => ({
  cpuSeconds,
  probes,
  seconds: 10,
  postgresCpuSeconds: postgres,
});

const step = (
  rate: number,
  ran: number,
  due: number,
  waitMs: number,
): RateStep => ({
  rate,
  due,
  queueWaitsMs: Array.from({ length: ran }, () => waitMs),
  vigilCores: 0.2,
  postgresCores: 0.1,
  machineCores: 1,
});

describe('cpuPerProbeUs', () => {
  it('is the median over windows of CPU per probe, in µs', () => {
    expect(
      cpuPerProbeUs([window(1, 5000), window(3, 5000), window(2, 5000)]),
    ).toBe(400);
  });

  it('leaves out a window that completed no probe', () => {
    expect(cpuPerProbeUs([window(1, 0), window(1, 1000)])).toBe(1000);
  });
});

describe('pairedCostRatio', () => {
  it("is the median of each round's ratio, not the ratio of the medians", () => {
    // Round 2 ran on a slower machine for both probers: 0.4×, 0.5×, 0.6×.
    const vigil = [window(0.4, 1000), window(1, 1000), window(0.6, 1000)];
    const blackbox = [window(1, 1000), window(2, 1000), window(1, 1000)];
    expect(pairedCostRatio(vigil, blackbox)).toBeCloseTo(0.5);
    // The medians alone (600 µs against 1000 µs) would say 0.6×.
    expect(cpuPerProbeUs(vigil)! / cpuPerProbeUs(blackbox)!).toBeCloseTo(0.6);
  });

  it('leaves out a round where either side completed no probe', () => {
    expect(
      pairedCostRatio(
        [window(0.4, 1000), window(1, 0), window(0.3, 1000)],
        [window(1, 1000), window(1, 1000), window(0, 0)],
      ),
    ).toBeCloseTo(0.4);
  });

  it('falls back to the ratio of the medians when the windows are not paired', () => {
    expect(
      pairedCostRatio(
        [window(0.4, 1000), window(0.6, 1000), window(0.5, 1000)],
        [window(1, 1000)],
      ),
    ).toBeCloseTo(0.5);
  });
});

describe('renderCostTable', () => {
  it('passes when Vigil uses at most half the CPU per probe of blackbox_exporter', () => {
    const { text, met } = renderCostTable({
      rate: 500,
      vigil: [window(0.5, 5000, 0.2)],
      blackbox: [window(1.5, 5000)],
      keepAlive: 'not applicable',
    });
    expect(met).toBe(true);
    expect(text).toContain('| Vigil, a connection per probe');
    expect(text).toMatch(/100 µs \| +0\.33× \| ≤ 0\.5×: PASS/);
    // With PostgreSQL's share: 140 µs, for information.
    expect(text).toMatch(/Vigil \+ its PostgreSQL backends .*140 µs/);
  });

  it("judges Vigil by the median of the rounds' ratios", () => {
    const { text, met } = renderCostTable({
      rate: 500,
      vigil: [window(0.4, 1000), window(1, 1000), window(0.6, 1000)],
      blackbox: [window(1, 1000), window(2, 1000), window(1, 1000)],
      keepAlive: 'not applicable',
    });
    expect(met).toBe(true);
    expect(text).toMatch(/600 µs \| +0\.50× \| ≤ 0\.5×: PASS/);
  });

  it('prints the Node floor, and says when the target lies below it', () => {
    const { text, met } = renderCostTable({
      rate: 500,
      vigil: [window(1.2, 5000)],
      blackbox: [window(1.5, 5000)],
      nodeFloor: [window(0.9, 5000)],
      keepAlive: 'not applicable',
    });
    expect(met).toBe(false);
    expect(text).toMatch(
      /\| Node floor: node:http alone .*180 µs \| +0\.60× \| information: above 0\.5× already/,
    );
    expect(text).toMatch(
      /240 µs \| +0\.80× \| ≤ 0\.5×: MISS; 1\.33× the Node floor/,
    );
  });

  it('misses when Vigil uses more than half', () => {
    const { text, met } = renderCostTable({
      rate: 500,
      vigil: [window(1, 5000)],
      blackbox: [window(1.5, 5000)],
      keepAlive: 'not applicable',
    });
    expect(met).toBe(false);
    expect(text).toContain('MISS');
  });
});

describe('the rate ramp', () => {
  it('sustains a rate whose ticks ran (99% at least) with queue wait p99 within 250 ms', () => {
    expect(isSustained(step(500, 990, 1000, 250))).toBe(true);
    expect(isSustained(step(500, 989, 1000, 10))).toBe(false);
    expect(isSustained(step(500, 1000, 1000, 251))).toBe(false);
  });

  it('is the highest rate below which every step was sustained', () => {
    expect(
      highestSustainedRate([
        step(1500, 1000, 1000, 5),
        step(500, 1000, 1000, 5),
        step(1000, 1000, 1000, 400),
      ]),
    ).toBe(500);
    expect(highestSustainedRate([step(500, 1000, 1000, 400)])).toBeUndefined();
  });
});

describe('renderTimeToKnowTable', () => {
  const failedAt = 1_000_000;

  it('passes when every failure is shown and notified within interval × threshold + 3 s', () => {
    const { text, met } = renderTimeToKnowTable({
      timings: [
        { failedAt, shownAt: failedAt + 30_000, notifiedAt: failedAt + 31_000 },
        { failedAt, shownAt: failedAt + 43_000, notifiedAt: failedAt + 42_000 },
      ],
      intervalMs: 20_000,
      failureThreshold: 2,
    });
    expect(met).toBe(true);
    expect(text).toMatch(
      /shown unhealthy by the API \| +2\/2 .*43\.0 s \| max ≤ 43 s: PASS/,
    );
  });

  it('misses when a failure is never notified, or is shown late', () => {
    expect(
      renderTimeToKnowTable({
        timings: [{ failedAt, shownAt: failedAt + 1_000 }],
        intervalMs: 20_000,
        failureThreshold: 2,
      }).met,
    ).toBe(false);
    expect(
      renderTimeToKnowTable({
        timings: [
          { failedAt, shownAt: failedAt + 43_001, notifiedAt: failedAt + 1 },
        ],
        intervalMs: 20_000,
        failureThreshold: 2,
      }).met,
    ).toBe(false);
  });
});
