import {
  InvalidBadgeRequestError,
  MAX_BADGE_LABEL_LENGTH,
  parseBadgeRequest,
} from './badgeRequest';

const payments = { namespace: 'default', name: 'payments' };

function problemsOf(result: ReturnType<typeof parseBadgeRequest>) {
  if (result.ok) {
    throw new Error(`expected problems, got ${JSON.stringify(result)}`);
  }
  return result.problems;
}

describe('parseBadgeRequest', () => {
  it('defaults to an SVG status badge of the whole system', () => {
    expect(parseBadgeRequest(payments, {})).toEqual({
      ok: true,
      request: {
        kind: 'status',
        systemRef: 'system:default/payments',
        format: 'svg',
      },
    });
  });

  it('lower-cases the system ref and the environment', () => {
    expect(
      parseBadgeRequest(
        { namespace: 'Team-A', name: 'Payments' },
        { environment: ' Production ' },
      ),
    ).toEqual({
      ok: true,
      request: {
        kind: 'status',
        systemRef: 'system:team-a/payments',
        environment: 'production',
        format: 'svg',
      },
    });
  });

  it('defaults the window to 7d for up-time and 24h (p95) for response time', () => {
    expect(parseBadgeRequest(payments, { kind: 'uptime' })).toMatchObject({
      ok: true,
      request: { kind: 'uptime', window: '7d' },
    });
    expect(
      parseBadgeRequest(payments, { kind: 'response-time' }),
    ).toMatchObject({
      ok: true,
      request: { kind: 'response-time', window: '24h', percentile: 'p95' },
    });
  });

  it('reads every parameter', () => {
    expect(
      parseBadgeRequest(payments, {
        kind: 'response-time',
        window: '30d',
        percentile: 'p50',
        environment: 'staging',
        format: 'json',
        style: 'for-the-badge',
        label: 'latency',
      }),
    ).toEqual({
      ok: true,
      request: {
        kind: 'response-time',
        window: '30d',
        percentile: 'p50',
        systemRef: 'system:default/payments',
        environment: 'staging',
        format: 'json',
        style: 'for-the-badge',
        label: 'latency',
      },
    });
  });

  it('takes an empty label, for a badge with the message alone', () => {
    expect(parseBadgeRequest(payments, { label: '' })).toMatchObject({
      ok: true,
      request: { label: '' },
    });
  });

  it('lists every problem, each with its parameter', () => {
    const problems = problemsOf(
      parseBadgeRequest(
        { namespace: 'default', name: 'not a name!' },
        {
          kind: 'latency',
          window: '1y',
          format: 'png',
          style: 'rounded',
          enviroment: 'production',
        },
      ),
    );
    expect(problems).toEqual([
      { path: 'name', reason: '"not a name!" is not a valid entity name' },
      {
        path: 'enviroment',
        reason:
          'is not a badge parameter; they are kind, window, percentile, objective, environment, format, style, label',
      },
      {
        path: 'kind',
        reason:
          'must be one of status, uptime, response-time, slo, not "latency"',
      },
      { path: 'window', reason: 'must be one of 24h, 7d, 30d, not "1y"' },
      { path: 'format', reason: 'must be one of svg, json, not "png"' },
      {
        path: 'style',
        reason:
          'must be one of flat, flat-square, plastic, for-the-badge, social, not "rounded"',
      },
    ]);
  });

  it('reads an SLO badge, of the worst objective or of one named, in the system’s namespace by default', () => {
    expect(parseBadgeRequest(payments, { kind: 'slo' })).toMatchObject({
      ok: true,
      request: { kind: 'slo', systemRef: 'system:default/payments' },
    });
    expect(
      parseBadgeRequest(
        { namespace: 'team-a', name: 'payments' },
        { kind: 'slo', objective: 'Payments-Up' },
      ),
    ).toMatchObject({
      ok: true,
      request: {
        kind: 'slo',
        objective: 'servicelevelobjective:team-a/payments-up',
      },
    });
  });

  it('refuses an objective on another kind, and a window on an SLO badge', () => {
    expect(
      problemsOf(parseBadgeRequest(payments, { objective: 'payments-up' })),
    ).toEqual([{ path: 'objective', reason: 'applies only to kind slo' }]);
    expect(
      problemsOf(parseBadgeRequest(payments, { kind: 'slo', window: '7d' })),
    ).toEqual([
      {
        path: 'window',
        reason: 'does not apply to kind slo: an objective has its own window',
      },
    ]);
  });

  it('refuses a window or percentile that the kind does not use', () => {
    expect(problemsOf(parseBadgeRequest(payments, { window: '7d' }))).toEqual([
      {
        path: 'window',
        reason: 'applies only to kind uptime or response-time',
      },
    ]);
    expect(
      problemsOf(
        parseBadgeRequest(payments, { kind: 'uptime', percentile: 'p95' }),
      ),
    ).toEqual([
      { path: 'percentile', reason: 'applies only to kind response-time' },
    ]);
  });

  it('refuses repeated, structured and empty values', () => {
    expect(
      problemsOf(
        parseBadgeRequest(payments, {
          kind: ['status', 'uptime'],
          style: { nested: 'x' },
          environment: '  ',
        }),
      ),
    ).toEqual([
      { path: 'kind', reason: 'is given more than once' },
      { path: 'style', reason: 'must be a plain string' },
      {
        path: 'environment',
        reason: 'must not be empty; leave it out for the whole system',
      },
    ]);
  });

  it('refuses an over-long label or one with control characters', () => {
    expect(
      problemsOf(
        parseBadgeRequest(payments, {
          label: `${'x'.repeat(MAX_BADGE_LABEL_LENGTH)}\n`,
        }),
      ),
    ).toEqual([
      {
        path: 'label',
        reason: `must be at most ${MAX_BADGE_LABEL_LENGTH} characters`,
      },
      { path: 'label', reason: 'must not contain control characters' },
    ]);
  });

  it('refuses an invalid namespace', () => {
    expect(
      problemsOf(parseBadgeRequest({ namespace: '-x-', name: 'payments' }, {})),
    ).toEqual([
      { path: 'namespace', reason: '"-x-" is not a valid entity namespace' },
    ]);
  });
});

describe('InvalidBadgeRequestError', () => {
  it('is an InputError whose message lists the problems, one per line', () => {
    const error = new InvalidBadgeRequestError([
      { path: 'kind', reason: 'is wrong' },
      { path: 'style', reason: 'is wrong too' },
    ]);
    expect(error.name).toBe('InputError');
    expect(error.message).toBe(
      'Invalid badge request, 2 problems:\n- kind: is wrong\n- style: is wrong too',
    );
    expect(
      new InvalidBadgeRequestError([{ path: 'kind', reason: 'is wrong' }])
        .message,
    ).toBe('Invalid badge request: kind: is wrong');
  });
});
