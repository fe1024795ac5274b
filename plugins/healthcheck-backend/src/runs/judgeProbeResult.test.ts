import { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { compiledConditionsOf, judgeProbeResult } from './judgeProbeResult';

const answered: ProbeResult = {
  ok: true,
  status: 200,
  body: '{"status":"UP"}',
  durationMs: 40,
  connected: true,
};

describe('judgeProbeResult', () => {
  it('judges a run by the compiled conditions, invalid ones failing with their reason', () => {
    const slice = {
      conditions: [
        '[STATUS] == 200',
        { condition: '[RESPONSE_TIME] < 10', severity: 'degraded' as const },
        '[STATUS] ==',
      ],
    };
    const verdict = judgeProbeResult(answered, compiledConditionsOf(slice));
    expect(verdict.outcome).toBe('fail');
    expect(verdict.conditions.map(c => c.success)).toEqual([
      true,
      false,
      false,
    ]);
    expect(verdict.conditions[2].display).toMatch(
      /^\[STATUS\] == \(invalid at position/,
    );
  });

  it('fails a run whose probe could not do its job, whatever the conditions say', () => {
    const verdict = judgeProbeResult(
      {
        ...answered,
        ok: false,
        error: { kind: 'timeout', message: 'timed out' },
      },
      compiledConditionsOf({ conditions: [] }),
    );
    expect(verdict.outcome).toBe('fail');
  });
});

describe('compiledConditionsOf', () => {
  it('parses a loaded slice’s conditions once, and a reloaded slice’s again', () => {
    const conditions = ['[STATUS] == 200'];
    const slice = { conditions };
    const first = compiledConditionsOf(slice);
    expect(compiledConditionsOf(slice)).toBe(first);
    expect(compiledConditionsOf({ conditions })).toBe(first);
    const reloaded = { conditions: ['[STATUS] == 200'] };
    expect(compiledConditionsOf(reloaded)).not.toBe(first);
    expect(compiledConditionsOf(reloaded)).toEqual(first);
  });
});
