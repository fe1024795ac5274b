import { SystemRollup } from '@vigil/plugin-healthcheck-common';
import {
  badgeSubject,
  budgetColor,
  formatTarget,
  sloBadge,
  formatResponseTime,
  formatUptime,
  responseTimeBadge,
  responseTimeColor,
  statusBadge,
  statusMessage,
  uptimeBadge,
  uptimeColor,
} from './badgeContent';

const rollup: SystemRollup = {
  systemRef: 'system:default/payments',
  status: 'degraded',
  environments: [
    {
      name: 'production',
      status: 'unhealthy',
      healthy: 2,
      total: 5,
      since: '2026-01-01T00:00:00.000Z',
    },
    {
      name: 'staging',
      status: 'healthy',
      healthy: 3,
      total: 3,
      since: '2026-01-01T00:00:00.000Z',
    },
  ],
  reasons: [],
  healthy: 5,
  total: 8,
  upstream: [],
  updatedAt: '2026-01-01T00:00:00.000Z',
  since: '2026-01-01T00:00:00.000Z',
};

describe('badgeSubject', () => {
  it('names the system, its namespace unless default, and the environment', () => {
    expect(badgeSubject('system:default/payments')).toBe('payments');
    expect(badgeSubject('system:default/payments', 'production')).toBe(
      'payments production',
    );
    expect(badgeSubject('system:team-a/payments', 'staging')).toBe(
      'team-a/payments staging',
    );
  });
});

describe('statusMessage', () => {
  it('is the word, with how many slices are ok when degraded or unhealthy', () => {
    expect(statusMessage('healthy', { healthy: 4, total: 4 })).toBe('healthy');
    expect(statusMessage('degraded', { healthy: 4, total: 5 })).toBe(
      'degraded, 4/5 ok',
    );
    expect(statusMessage('unhealthy', { healthy: 0, total: 2 })).toBe(
      'unhealthy, 0/2 ok',
    );
    expect(statusMessage('unhealthy', { healthy: 0, total: 0 })).toBe(
      'unhealthy',
    );
    expect(statusMessage('unknown', { healthy: 0, total: 3 })).toBe('unknown');
    expect(statusMessage('paused', { healthy: 0, total: 0 })).toBe('paused');
  });
});

describe('statusBadge', () => {
  it('shows the system, or one environment of it', () => {
    expect(statusBadge(rollup)).toEqual({
      label: 'payments',
      message: 'degraded, 5/8 ok',
      color: 'yellow',
    });
    expect(statusBadge(rollup, rollup.environments[0])).toEqual({
      label: 'payments production',
      message: 'unhealthy, 2/5 ok',
      color: 'red',
    });
    expect(statusBadge(rollup, rollup.environments[1])).toEqual({
      label: 'payments staging',
      message: 'healthy',
      color: 'brightgreen',
    });
  });

  it('says that a rollup is the last one read while the database cannot be read', () => {
    expect(statusBadge({ ...rollup, stale: true })).toMatchObject({
      message: 'degraded, 5/8 ok (stale)',
      color: 'yellow',
    });
    expect(
      statusBadge({ ...rollup, stale: true }, rollup.environments[1]).message,
    ).toBe('healthy (stale)');
  });

  it('says maintenance is in force, keeping the colour of the status', () => {
    expect(statusBadge(rollup, rollup.environments[0], true)).toEqual({
      label: 'payments production',
      message: 'unhealthy, 2/5 ok · maintenance',
      color: 'red',
    });
    expect(statusBadge({ ...rollup, stale: true }, undefined, true)).toEqual({
      label: 'payments',
      message: 'degraded, 5/8 ok · maintenance (stale)',
      color: 'yellow',
    });
  });

  it.each([
    ['healthy', 'brightgreen'],
    ['degraded', 'yellow'],
    ['unhealthy', 'red'],
    ['unknown', 'lightgrey'],
    ['paused', 'grey'],
  ] as const)('colours %s %s', (status, color) => {
    expect(statusBadge({ ...rollup, status }).color).toBe(color);
  });
});

describe('formatUptime and uptimeColor', () => {
  it.each([
    [1, '100%', 'brightgreen'],
    [0.99999, '99.99%', 'brightgreen'],
    [0.999, '99.9%', 'brightgreen'],
    [0.99899, '99.89%', 'green'],
    [0.99, '99%', 'green'],
    [0.9899, '98.99%', 'yellow'],
    [0.95, '95%', 'yellow'],
    [0.875, '87.5%', 'red'],
    [0, '0%', 'red'],
    [1.2, '100%', 'brightgreen'],
    [-0.1, '0%', 'red'],
    [undefined, 'no data', 'lightgrey'],
    [Number.NaN, 'no data', 'lightgrey'],
  ])('%s is %s in %s', (fraction, text, color) => {
    expect(formatUptime(fraction)).toBe(text);
    expect(uptimeColor(fraction)).toBe(color);
  });

  it('never rounds up to a better tier than the number shown', () => {
    expect(formatUptime(0.998999)).toBe('99.89%');
    expect(uptimeColor(0.998999)).toBe('green');
  });
});

describe('uptimeBadge', () => {
  it('names the window in the label', () => {
    expect(
      uptimeBadge({
        systemRef: 'system:default/payments',
        environment: 'production',
        window: '30d',
        uptime: 0.9995,
      }),
    ).toEqual({
      label: 'payments production uptime 30d',
      message: '99.95%',
      color: 'brightgreen',
    });
  });
});

describe('formatResponseTime and responseTimeColor', () => {
  it.each([
    [0, '0 ms', 'brightgreen'],
    [87.4, '87 ms', 'brightgreen'],
    [200, '200 ms', 'brightgreen'],
    [230, '230 ms', 'green'],
    [999.4, '999 ms', 'yellow'],
    [999.6, '1 s', 'yellow'],
    [1200, '1.2 s', 'orange'],
    [1234, '1.23 s', 'orange'],
    [14_520, '14.5 s', 'red'],
    [120_000, '120 s', 'red'],
    [undefined, 'no data', 'lightgrey'],
    [-1, 'no data', 'lightgrey'],
    [Number.POSITIVE_INFINITY, 'no data', 'lightgrey'],
  ])('%s ms is %s in %s', (ms, text, color) => {
    expect(formatResponseTime(ms)).toBe(text);
    expect(responseTimeColor(ms)).toBe(color);
  });
});

describe('responseTimeBadge', () => {
  it('shows the percentile asked for, naming it', () => {
    const base = {
      systemRef: 'system:default/payments',
      window: '24h' as const,
      responseTimes: { p50: 120, p95: 640 },
    };
    expect(responseTimeBadge({ ...base, percentile: 'p95' })).toEqual({
      label: 'payments response time 24h',
      message: 'p95 640 ms',
      color: 'yellow',
    });
    expect(responseTimeBadge({ ...base, percentile: 'p50' })).toEqual({
      label: 'payments response time 24h',
      message: 'p50 120 ms',
      color: 'brightgreen',
    });
  });

  it('says no data without measurements', () => {
    expect(
      responseTimeBadge({
        systemRef: 'system:default/payments',
        environment: 'staging',
        window: '7d',
        percentile: 'p95',
        responseTimes: undefined,
      }),
    ).toEqual({
      label: 'payments staging response time 7d',
      message: 'no data',
      color: 'lightgrey',
    });
  });
});

describe('sloBadge', () => {
  it('shows attainment over target, coloured by the budget left', () => {
    expect(
      sloBadge({
        systemRef: 'system:default/payments',
        environment: 'production',
        objective: { target: 0.999, attainment: 0.99937, remainingRatio: 0.37 },
      }),
    ).toEqual({
      label: 'payments production SLO',
      message: '99.93% / 99.9%',
      color: 'green',
    });
  });

  it('never rounds attainment up to the target, and says when nothing counted yet', () => {
    expect(
      sloBadge({
        systemRef: 'system:default/payments',
        objective: {
          target: 0.999,
          attainment: 0.99899,
          remainingRatio: -0.01,
        },
      }),
    ).toMatchObject({ message: '99.89% / 99.9%', color: 'red' });
    expect(
      sloBadge({
        systemRef: 'system:default/payments',
        objective: { target: 0.95, attainment: null, remainingRatio: null },
      }),
    ).toEqual({
      label: 'payments SLO',
      message: 'no data / 95%',
      color: 'lightgrey',
    });
  });

  it('writes a target as precisely as it was declared', () => {
    expect(formatTarget(0.999)).toBe('99.9%');
    expect(formatTarget(0.9995)).toBe('99.95%');
    expect(formatTarget(0.99995)).toBe('99.995%');
    expect(formatTarget(0.95)).toBe('95%');
  });

  it.each([
    [1, 'brightgreen'],
    [0.5, 'brightgreen'],
    [0.49, 'green'],
    [0.25, 'green'],
    [0.1, 'yellow'],
    [0.05, 'orange'],
    [0, 'red'],
    [-2, 'red'],
    [null, 'lightgrey'],
  ] as const)('colours a budget left of %p %s', (ratio, color) => {
    expect(budgetColor(ratio)).toBe(color);
  });
});
