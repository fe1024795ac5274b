import { renderInTestApp } from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { HealthStatusBadge } from './HealthStatusBadge';
import { healthWithoutChecks, paymentsHealth } from './__testUtils__/fixtures';

const WORDS: Record<HealthStatus, string> = {
  healthy: 'Healthy',
  degraded: 'Degraded',
  unhealthy: 'Unhealthy',
  unknown: 'Unknown',
  paused: 'Paused',
};

describe('HealthStatusBadge', () => {
  it('shows each status as its word with its own icon', async () => {
    await renderInTestApp(
      <>
        {Object.keys(WORDS).map(status => (
          <HealthStatusBadge key={status} status={status as HealthStatus} />
        ))}
      </>,
    );
    const icons = Object.values(WORDS).map(word => {
      const icon = screen.getByText(word).querySelector('svg');
      expect(icon).toBeInTheDocument();
      return icon!.innerHTML;
    });
    expect(new Set(icons).size).toBe(icons.length);
  });

  it('explains the status in a tooltip: failing checks and upstream systems', async () => {
    const user = userEvent.setup();
    await renderInTestApp(
      <HealthStatusBadge
        rollup={paymentsHealth({
          status: 'unhealthy',
          reasons: [
            {
              checkId: 'healthcheck:default/payments-api',
              environment: 'production',
              status: 'unhealthy',
              display: '[STATUS] (500) == 200',
            },
          ],
          upstream: [{ systemRef: 'system:default/auth', status: 'degraded' }],
        })}
      />,
    );
    await user.tab();
    expect(screen.getByRole('img', { name: 'Unhealthy' })).toHaveFocus();
    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip).toHaveTextContent(
      'payments-api in production: Unhealthy, [STATUS] (500) == 200',
    );
    expect(tooltip).toHaveTextContent('Upstream systems not healthy');
    expect(tooltip).toHaveTextContent('auth: Degraded');
  });

  it('marks a stale rollup as the last known, in its name and its tooltip', async () => {
    const user = userEvent.setup();
    await renderInTestApp(
      <HealthStatusBadge rollup={paymentsHealth({ stale: true })} />,
    );
    await user.tab();
    expect(
      screen.getByRole('img', {
        name: 'Degraded (last known, the database is unreachable)',
      }),
    ).toHaveFocus();
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'Last known, the database is unreachable.',
    );
  });

  it('says a system in maintenance in its word, name and tooltip, keeping the status colour', async () => {
    const user = userEvent.setup();
    const failing = paymentsHealth({
      status: 'unhealthy',
      reasons: [
        {
          checkId: 'healthcheck:default/payments-api',
          environment: 'production',
          status: 'unhealthy',
          display: '[STATUS] (500) == 200',
          inMaintenance: true,
        },
      ],
    });
    await renderInTestApp(
      <>
        <HealthStatusBadge
          rollup={{
            ...failing,
            maintenance: {
              current: [
                {
                  windowId: 'w-deploy',
                  start: new Date().toISOString(),
                  end: new Date(Date.now() + 1_800_000).toISOString(),
                  reason: 'Deploying 4.2',
                },
              ],
            },
          }}
        />
        <HealthStatusBadge rollup={failing} />
      </>,
    );
    const [inMaintenance, plain] = screen.getAllByRole('img');
    expect(inMaintenance).toHaveAccessibleName('Unhealthy (in maintenance)');
    expect(inMaintenance).toHaveTextContent('Unhealthy · maintenance');
    expect(plain).toHaveAccessibleName('Unhealthy');
    // The border is the status colour, as without maintenance.
    expect(inMaintenance.style.borderColor).toBeTruthy();
    expect(inMaintenance.style.borderColor).toBe(plain.style.borderColor);

    await user.tab();
    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip).toHaveTextContent(
      'payments-api in production: Unhealthy, [STATUS] (500) == 200 (in maintenance)',
    );
    expect(tooltip).toHaveTextContent(
      /In maintenance until \S.* — Deploying 4\.2\. Notifications wait for the window to end\./,
    );
  });

  it('says "No checks" for a system without checks', async () => {
    const user = userEvent.setup();
    await renderInTestApp(<HealthStatusBadge rollup={healthWithoutChecks()} />);
    expect(screen.getByText('No checks')).toBeInTheDocument();
    await user.tab();
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'This system has no health checks.',
    );
  });
});
