import {
  buildEnvironmentNotification,
  DEFAULT_NOTIFICATION_SETTINGS,
  upstreamCauses,
} from './buildNotification';

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
  at: '2026-12-08T12:00:00.000Z',
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
        scope: 'healthcheck:system:default/payments:production:1796731200000',
      },
    });
  });

  it('tells it again on recovery, in a scope of its own: one notification per transition, however often delivered', () => {
    const down = buildEnvironmentNotification({
      ...change,
      from: 'healthy',
      to: 'unhealthy',
    });
    const up = buildEnvironmentNotification({
      ...change,
      from: 'unhealthy',
      to: 'healthy',
      at: '2026-12-08T12:05:00.000Z',
    });
    const upAgain = buildEnvironmentNotification({
      ...change,
      from: 'unhealthy',
      to: 'healthy',
      at: '2026-12-08T12:05:00.000Z',
    });
    expect(up?.payload).toMatchObject({
      title: 'payments in production recovered',
      severity: 'low',
    });
    expect(up?.payload.scope).not.toBe(down?.payload.scope);
    expect(upAgain?.payload.scope).toBe(up?.payload.scope);
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

  const identity = {
    systemRef: 'system:default/identity',
    status: 'unhealthy' as const,
  };
  const targetingAuth = {
    ...change,
    from: 'healthy' as const,
    to: 'unhealthy' as const,
    reasons: [
      {
        ...change.reasons[0],
        components: [
          'component:default/payments-service',
          'component:default/auth-service',
        ],
      },
    ],
    upstream: [identity],
    systemOfComponent: new Map([
      ['component:default/payments-service', 'system:default/payments'],
      ['component:default/auth-service', 'system:default/identity'],
    ]),
  };

  it('says an unhealthy upstream system is the likely cause when a failing check targets one of its components', () => {
    const notification = buildEnvironmentNotification(targetingAuth);
    expect(notification?.payload.title).toBe(
      'payments in production is unhealthy (upstream)',
    );
    expect(notification?.payload.description).toBe(
      'Failing: healthcheck:default/payments-health: [STATUS] (500) == 200. ' +
        'Probably upstream: system:default/identity (through component:default/auth-service) is unhealthy.',
    );
  });

  it('does not blame an unhealthy upstream system that no failing check targets', () => {
    const notification = buildEnvironmentNotification({
      ...change,
      from: 'healthy',
      to: 'unhealthy',
      upstream: [identity],
    });
    expect(notification?.payload.title).toBe(
      'payments in production is unhealthy',
    );
    expect(notification?.payload.description).not.toContain('upstream');
  });

  it('blames any unhealthy upstream system when configured to', () => {
    const notification = buildEnvironmentNotification(
      { ...change, from: 'healthy', to: 'unhealthy', upstream: [identity] },
      { ...DEFAULT_NOTIFICATION_SETTINGS, upstreamAttribution: 'any' },
    );
    expect(notification?.payload.title).toBe(
      'payments in production is unhealthy (upstream)',
    );
    expect(notification?.payload.description).toContain(
      'Probably upstream: system:default/identity is unhealthy.',
    );
  });

  it('stays silent about an upstream outage when configured to', () => {
    const suppress = {
      ...DEFAULT_NOTIFICATION_SETTINGS,
      productionEnvironments: ['production'],
      suppressUpstream: true,
    };
    expect(
      buildEnvironmentNotification(targetingAuth, suppress),
    ).toBeUndefined();
    // An outage upstream that no failing check targets is this system's own.
    expect(
      buildEnvironmentNotification(
        { ...targetingAuth, systemOfComponent: new Map() },
        suppress,
      )?.payload.title,
    ).toBe('payments in production is unhealthy');
  });

  it('tells of a recovery whatever the upstream systems do', () => {
    expect(
      buildEnvironmentNotification(
        { ...targetingAuth, from: 'unhealthy', to: 'healthy' },
        { ...DEFAULT_NOTIFICATION_SETTINGS, suppressUpstream: true },
      )?.payload.title,
    ).toBe('payments in production recovered');
  });
});

describe('upstreamCauses', () => {
  const reason = (
    checkId: string,
    status: 'unhealthy' | 'degraded',
    components?: string[],
  ) => ({
    checkId,
    environment: 'production',
    status,
    display: 'down',
    ...(components && { components }),
  });
  const systemOfComponent = new Map([
    ['component:default/auth-service', 'system:default/identity'],
    ['component:default/event-bus-client', 'system:default/messaging'],
    ['component:default/payments-service', 'system:default/payments'],
  ]);
  const upstream = [
    { systemRef: 'system:default/identity', status: 'unhealthy' as const },
    { systemRef: 'system:default/messaging', status: 'unhealthy' as const },
    { systemRef: 'system:default/search', status: 'degraded' as const },
  ];

  it('under targets, keeps the unhealthy upstream systems that own a component a failing check targets', () => {
    expect(
      upstreamCauses({
        reasons: [
          reason('a', 'unhealthy', [
            'component:default/auth-service',
            'component:default/payments-service',
          ]),
          // A degraded check is not failing: its components do not count.
          reason('b', 'degraded', ['component:default/event-bus-client']),
        ],
        upstream,
        systemOfComponent,
        attribution: 'targets',
      }),
    ).toEqual([
      {
        systemRef: 'system:default/identity',
        components: ['component:default/auth-service'],
      },
    ]);
  });

  it('under targets, keeps none when the failing checks name no components, or components the catalog does not place', () => {
    for (const reasons of [
      [reason('a', 'unhealthy')],
      [reason('a', 'unhealthy', ['component:default/unknown'])],
    ]) {
      expect(
        upstreamCauses({
          reasons,
          upstream,
          systemOfComponent,
          attribution: 'targets',
        }),
      ).toEqual([]);
    }
  });

  it('compares refs without regard to case', () => {
    expect(
      upstreamCauses({
        reasons: [reason('a', 'unhealthy', ['Component:default/Auth-Service'])],
        upstream: [
          { systemRef: 'system:default/Identity', status: 'unhealthy' },
        ],
        systemOfComponent,
        attribution: 'targets',
      }),
    ).toEqual([
      {
        systemRef: 'system:default/Identity',
        components: ['component:default/auth-service'],
      },
    ]);
  });

  it('under any, keeps every unhealthy upstream system, naming the targeted components where there are some', () => {
    expect(
      upstreamCauses({
        reasons: [reason('a', 'unhealthy', ['component:default/auth-service'])],
        upstream,
        systemOfComponent,
        attribution: 'any',
      }),
    ).toEqual([
      {
        systemRef: 'system:default/identity',
        components: ['component:default/auth-service'],
      },
      { systemRef: 'system:default/messaging', components: [] },
    ]);
  });
});
