import { buildEnvironmentNotification } from './buildNotification';

const change = {
  systemRef: 'system:default/payments',
  environment: 'production',
  reasons: [
    {
      checkId: 'healthcheck:default/payments-health',
      environment: 'production',
      status: 'unhealthy' as const,
      display: '[STATUS] (500) == 200',
    },
  ],
  upstream: [],
};

describe('buildEnvironmentNotification', () => {
  it('tells the owner when an environment becomes unhealthy, with the failing condition and a link to the Health tab', () => {
    expect(
      buildEnvironmentNotification({
        ...change,
        from: 'healthy',
        to: 'unhealthy',
      }),
    ).toEqual({
      entityRef: 'system:default/payments',
      payload: {
        title: 'payments in production is unhealthy',
        description:
          'Failing: healthcheck:default/payments-health: [STATUS] (500) == 200.',
        link: '/catalog/default/system/payments/health',
        severity: 'high',
        topic: 'healthcheck',
        scope: 'healthcheck:system:default/payments:production',
      },
    });
  });

  it('tells it again on recovery, in the same scope, so a flapping check updates one notification', () => {
    const down = buildEnvironmentNotification({
      ...change,
      from: 'healthy',
      to: 'unhealthy',
    });
    const up = buildEnvironmentNotification({
      ...change,
      from: 'unhealthy',
      to: 'healthy',
    });
    expect(up?.payload).toMatchObject({
      title: 'payments in production recovered',
      severity: 'low',
    });
    expect(up?.payload.scope).toBe(down?.payload.scope);
  });

  it('uses normal severity outside production', () => {
    expect(
      buildEnvironmentNotification({
        ...change,
        environment: 'staging',
        from: 'healthy',
        to: 'unhealthy',
      })?.payload.severity,
    ).toBe('normal');
  });

  it.each([
    ['unknown', 'healthy'],
    ['healthy', 'degraded'],
    ['degraded', 'healthy'],
    ['healthy', 'paused'],
    ['unhealthy', 'paused'],
    ['paused', 'healthy'],
    ['unhealthy', 'unknown'],
  ] as const)('says nothing for %s -> %s', (from, to) => {
    expect(
      buildEnvironmentNotification({ ...change, from, to }),
    ).toBeUndefined();
  });

  it('says when an unhealthy upstream system is the likely cause', () => {
    const notification = buildEnvironmentNotification({
      ...change,
      from: 'healthy',
      to: 'unhealthy',
      upstream: [{ systemRef: 'system:default/identity', status: 'unhealthy' }],
    });
    expect(notification?.payload.title).toBe(
      'payments in production is unhealthy (upstream)',
    );
    expect(notification?.payload.description).toContain(
      'Probably upstream: system:default/identity is unhealthy.',
    );
  });

  it('stays silent about an upstream outage when configured to', () => {
    expect(
      buildEnvironmentNotification(
        {
          ...change,
          from: 'healthy',
          to: 'unhealthy',
          upstream: [
            { systemRef: 'system:default/identity', status: 'unhealthy' },
          ],
        },
        { productionEnvironments: ['production'], suppressUpstream: true },
      ),
    ).toBeUndefined();
  });
});
