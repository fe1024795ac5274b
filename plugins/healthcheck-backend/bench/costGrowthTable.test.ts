import {
  judgeGrowth,
  renderGrowthTable,
  type GrowthRow,
} from './costGrowthTable';

const SIZES = [10_000, 50_000, 200_000];

function row(
  figures: Array<[number, number[]]>,
  target: GrowthRow['target'] = { kind: 'growth' },
): GrowthRow {
  return {
    measure: 'full reconcile per slice',
    where: 'SQLite',
    unit: 'µs/slice',
    figures: new Map(figures),
    target,
  };
}

describe('judgeGrowth', () => {
  it('meets a growth target when the largest size costs at most 1.5x the smallest, per median', () => {
    const verdict = judgeGrowth(
      row([
        [10_000, [40, 41, 90]],
        [50_000, [44, 45, 46]],
        [200_000, [60, 55, 61]],
      ]),
      SIZES,
    );
    expect(verdict.medians).toEqual([41, 45, 60]);
    expect(verdict.ratios?.[2]).toBeCloseTo(60 / 41);
    expect(verdict.met).toBe(true);
  });

  it('misses a growth target past 1.5x, and says so in its text', () => {
    const verdict = judgeGrowth(
      row([
        [10_000, [40]],
        [200_000, [61]],
      ]),
      SIZES,
    );
    expect(verdict.met).toBe(false);
    expect(verdict.text).toBe('200k/10k 1.52× ≤ 1.5×: MISSED');
    expect(verdict.medians[1]).toBeUndefined();
  });

  it('judges an at-most target at every size', () => {
    const target = { kind: 'at most' as const, limit: 0.2 };
    expect(
      judgeGrowth(
        row(
          [
            [10_000, [0.25]],
            [200_000, [0.1]],
          ],
          target,
        ),
        SIZES,
      ).met,
    ).toBe(false);
    expect(judgeGrowth(row([[10_000, [0.15]]], target), SIZES).met).toBe(true);
  });

  it('judges nothing it has no figures for', () => {
    expect(judgeGrowth(row([]), SIZES).met).toBeUndefined();
  });
});

describe('renderGrowthTable', () => {
  it('prints one column per size with each ratio, and lists the misses', () => {
    const { text, missed } = renderGrowthTable(
      [
        row([
          [10_000, [40]],
          [200_000, [80]],
        ]),
      ],
      [10_000, 200_000],
    );
    expect(text.split('\n')[0]).toMatch(/10k slices .*200k slices .*target/);
    expect(text).toContain('40.0 µs/slice (1.00×)');
    expect(text).toContain('80.0 µs/slice (2.00×)');
    expect(missed).toEqual([
      'full reconcile per slice on SQLite: 200k/10k 2.00× ≤ 1.5×: MISSED',
    ]);
  });
});
