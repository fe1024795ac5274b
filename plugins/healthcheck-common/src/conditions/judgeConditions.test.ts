import { judgeConditions, validateConditions } from './judgeConditions';

const healthy = { status: 200, responseTimeMs: 80, body: '{"queue":12}' };
const slow = { ...healthy, responseTimeMs: 900 };
const broken = { ...slow, status: 500 };

const specs = [
  '[STATUS] == 200',
  { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' as const },
  { condition: '[BODY].queue < 100' },
];

describe('judgeConditions', () => {
  it('passes when every condition holds', () => {
    expect(judgeConditions(specs, healthy)).toEqual({
      outcome: 'pass',
      results: [
        {
          condition: '[STATUS] == 200',
          severity: 'unhealthy',
          success: true,
          display: '[STATUS] == 200',
        },
        {
          condition: '[RESPONSE_TIME] < 500',
          severity: 'degraded',
          success: true,
          display: '[RESPONSE_TIME] < 500',
        },
        {
          condition: '[BODY].queue < 100',
          severity: 'unhealthy',
          success: true,
          display: '[BODY].queue < 100',
        },
      ],
    });
  });

  it('degrades when only degraded-severity conditions fail', () => {
    const judgement = judgeConditions(specs, slow);
    expect(judgement.outcome).toBe('degraded');
    expect(judgement.results[1]).toEqual({
      condition: '[RESPONSE_TIME] < 500',
      severity: 'degraded',
      success: false,
      display: '[RESPONSE_TIME] (900) < 500',
    });
  });

  it('fails when an unhealthy-severity condition fails, degraded ones or not', () => {
    expect(judgeConditions(specs, broken).outcome).toBe('fail');
    expect(judgeConditions(specs, { ...healthy, status: 500 }).outcome).toBe(
      'fail',
    );
  });

  it('passes a check with no conditions', () => {
    expect(judgeConditions([], broken)).toEqual({
      outcome: 'pass',
      results: [],
    });
  });

  it('fails a condition that does not parse, with the reason, instead of throwing', () => {
    const judgement = judgeConditions(
      [{ condition: '[RESPONSE_TIME] < soon', severity: 'degraded' }],
      healthy,
    );
    expect(judgement).toEqual({
      outcome: 'fail',
      results: [
        {
          condition: '[RESPONSE_TIME] < soon',
          severity: 'unhealthy',
          success: false,
          display:
            '[RESPONSE_TIME] < soon (invalid at position 18: "soon" is not a number' +
            ' or a duration (such as 200, 0x1F, 2.5 or 500ms), so < cannot compare it)',
        },
      ],
    });
  });

  it('parses the body once for all the conditions of a run', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      judgeConditions(
        ['[BODY].queue < 100', '[BODY].queue > 0', 'has([BODY].queue) == true'],
        healthy,
      );
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('validateConditions', () => {
  it('finds nothing wrong with good conditions', () => {
    expect(validateConditions(specs)).toEqual([]);
    expect(validateConditions([])).toEqual([]);
  });

  it('names the index, text, position and reason of each bad condition', () => {
    expect(
      validateConditions([
        '[STATUS] == 200',
        '[RESPONSE_TIME] < soon',
        { condition: '[STAUTS] == 200', severity: 'degraded' },
      ]),
    ).toEqual([
      {
        index: 1,
        condition: '[RESPONSE_TIME] < soon',
        position: 18,
        reason:
          '"soon" is not a number or a duration (such as 200, 0x1F, 2.5 or 500ms), so < cannot compare it',
        message:
          'conditions[1] "[RESPONSE_TIME] < soon", at position 18: "soon" is not a number' +
          ' or a duration (such as 200, 0x1F, 2.5 or 500ms), so < cannot compare it',
      },
      expect.objectContaining({
        index: 2,
        condition: '[STAUTS] == 200',
        position: 0,
        reason: expect.stringContaining('unknown placeholder [STAUTS]'),
      }),
    ]);
  });

  it('rejects a severity other than unhealthy or degraded, and entries of the wrong shape', () => {
    expect(
      validateConditions([
        { condition: '[STATUS] == 200', severity: 'critical' },
        { when: '[STATUS] == 200' },
        42,
      ]),
    ).toEqual([
      expect.objectContaining({
        index: 0,
        condition: '[STATUS] == 200',
        reason: 'severity is "unhealthy" or "degraded", not "critical"',
      }),
      expect.objectContaining({
        index: 1,
        condition: '',
        reason: 'an object condition needs a "condition" text',
      }),
      expect.objectContaining({
        index: 2,
        condition: '42',
        reason: 'a condition is a text, or { condition, severity }',
      }),
    ]);
  });
});
