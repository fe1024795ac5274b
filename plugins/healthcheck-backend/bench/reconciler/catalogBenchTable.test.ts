import {
  judgeCatalogTargets,
  renderCostTable,
  type StepName,
  type StepSample,
} from './catalogBenchTable';

function sample(figures: Partial<StepSample>): StepSample {
  return {
    wallMs: 100,
    vigilCpuMs: 10,
    catalogCpuMs: 10,
    postgresCpuMs: 1,
    requests: 4,
    entities: 50_000,
    bytes: 1_000_000,
    ...figures,
  };
}

function steps(
  poll: Array<Partial<StepSample>>,
  naive: Array<Partial<StepSample>>,
): Map<StepName, StepSample[]> {
  return new Map<StepName, StepSample[]>([
    ['unchanged poll', poll.map(sample)],
    ['naive read', naive.map(sample)],
  ]);
}

describe('judgeCatalogTargets', () => {
  it('passes an unchanged poll at a tenth of the naive read on each side, by medians', () => {
    const verdicts = judgeCatalogTargets({
      steps: steps(
        [
          { vigilCpuMs: 20, catalogCpuMs: 30 },
          { vigilCpuMs: 25, catalogCpuMs: 29 },
          { vigilCpuMs: 900, catalogCpuMs: 900 },
        ],
        [
          { vigilCpuMs: 250, catalogCpuMs: 300 },
          { vigilCpuMs: 260, catalogCpuMs: 310 },
          { vigilCpuMs: 240, catalogCpuMs: 290 },
        ],
      ),
      pollIntervalMs: 30_000,
      pacedSpacingMs: 30_000,
      timesToProbeMs: [],
    });
    expect(verdicts[0]).toMatchObject({
      target: 'unchanged poll CPU / naive read CPU, Vigil process',
      measured: '0.100× (25.0 ms / 250 ms)',
      met: true,
    });
    expect(verdicts[1]).toMatchObject({
      target: 'unchanged poll CPU / naive read CPU, catalog process',
      met: true,
    });
  });

  it('misses the ratio when a poll costs more than a tenth of the naive read', () => {
    const [vigil, catalog] = judgeCatalogTargets({
      steps: steps(
        [{ vigilCpuMs: 26, catalogCpuMs: 200 }],
        [{ vigilCpuMs: 250, catalogCpuMs: 300 }],
      ),
      pollIntervalMs: 30_000,
      pacedSpacingMs: 30_000,
      timesToProbeMs: [],
    });
    expect(vigil.met).toBe(false);
    expect(catalog).toMatchObject({
      measured: expect.stringMatching(/^0\.667×/),
      met: false,
    });
  });

  it('judges the poll at most 1% of a core over the poll interval: 300 ms of CPU every 30 s', () => {
    const verdicts = judgeCatalogTargets({
      steps: steps(
        [{ vigilCpuMs: 300, catalogCpuMs: 301 }],
        [{ vigilCpuMs: 3_000, catalogCpuMs: 3_000 }],
      ),
      pollIntervalMs: 30_000,
      pacedSpacingMs: 30_000,
      timesToProbeMs: [],
    });
    expect(verdicts[2]).toMatchObject({
      measured: '1.00% of a core',
      met: true,
    });
    expect(verdicts[3]).toMatchObject({ met: false });
  });

  it('judges the same CPU over the spacing the poll budget gives, apart from the interval', () => {
    const verdicts = judgeCatalogTargets({
      steps: steps(
        [{ vigilCpuMs: 700, catalogCpuMs: 900 }],
        [{ vigilCpuMs: 3_000, catalogCpuMs: 3_000 }],
      ),
      pollIntervalMs: 30_000,
      pacedSpacingMs: 180_000,
      timesToProbeMs: [],
    });
    expect(verdicts[2]).toMatchObject({
      target: 'unchanged poll CPU over the 30 s poll interval, Vigil process',
      met: false,
    });
    expect(verdicts[4]).toMatchObject({
      target: 'unchanged poll CPU over the 180 s paced spacing, Vigil process',
      measured: '0.39% of a core',
      met: true,
    });
    expect(verdicts[5]).toMatchObject({
      target:
        'unchanged poll CPU over the 180 s paced spacing, catalog process',
      measured: '0.50% of a core',
      met: true,
    });
  });

  it('judges the slowest move against the paced poll spacing plus 5 s', () => {
    const judge = (timesToProbeMs: number[]) =>
      judgeCatalogTargets({
        steps: steps([{}], [{}]),
        pollIntervalMs: 30_000,
        pacedSpacingMs: 30_000,
        timesToProbeMs,
      })[6];
    expect(judge([12_000, 35_000])).toMatchObject({
      measured: '35 s',
      limit: '≤ 35 s (paced poll spacing + 5 s)',
      met: true,
    });
    expect(judge([12_000, 35_100])).toMatchObject({ met: false });
    expect(
      judgeCatalogTargets({
        steps: steps([{}], [{}]),
        pollIntervalMs: 30_000,
        pacedSpacingMs: 180_000,
        timesToProbeMs: [252_000],
        moveSpacingMs: 240_000,
      })[6],
    ).toMatchObject({
      limit: '≤ 245 s (longest poll spacing meanwhile + 5 s)',
      met: false,
    });
    expect(judge([])).toMatchObject({
      measured: 'not measured',
      met: undefined,
    });
  });
});

describe('judgeCatalogTargets with announcements', () => {
  it('judges the slowest announced move, from the provider, against the poll interval plus 5 s, apart from the poll alone', () => {
    const verdicts = judgeCatalogTargets({
      steps: steps([{}], [{}]),
      pollIntervalMs: 30_000,
      pacedSpacingMs: 240_000,
      timesToProbeMs: [300_000],
      moveSpacingMs: 330_000,
      announcedMovesMs: [4_200, 3_900, 36_000],
    });
    expect(verdicts).toHaveLength(8);
    expect(verdicts[7]).toMatchObject({
      measured: '36 s',
      limit: '≤ 35 s (poll interval + 5 s)',
      met: false,
    });
    expect(
      judgeCatalogTargets({
        steps: steps([{}], [{}]),
        pollIntervalMs: 30_000,
        pacedSpacingMs: 240_000,
        timesToProbeMs: [],
      }),
    ).toHaveLength(7);
  });
});

describe('renderCostTable', () => {
  it('shows each step against the naive read of the same run, and the naive read alone', () => {
    const table = renderCostTable(
      steps(
        [{ vigilCpuMs: 20, catalogCpuMs: 60, bytes: 2 * 1024 * 1024 }],
        [{ vigilCpuMs: 200, catalogCpuMs: 300, bytes: 30 * 1024 * 1024 }],
      ),
    );
    const [header, , poll, naive] = table.split('\n');
    expect(header).toMatch(/^\| step +\| runs \| wall/);
    expect(poll).toContain('20.0 ms (0.10×)');
    expect(poll).toContain('60.0 ms (0.20×)');
    expect(poll).toContain('2.0 MiB');
    expect(naive).toContain('| 200 ms ');
    expect(naive).not.toContain('×');
  });
});
