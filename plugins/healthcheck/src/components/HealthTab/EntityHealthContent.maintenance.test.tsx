import { screen, within } from '@testing-library/react';
import {
  ago,
  cell,
  GIT_CHECK,
  makeApi,
  makeSystem,
  NOW,
  renderTab,
} from './__testUtils__/healthTab';

const in30Minutes = new Date(NOW + 30 * 60_000).toISOString();
const nextSunday = {
  windowId: 'maintenancewindow:default/weekly-patching',
  start: new Date(NOW + 4 * 86_400_000).toISOString(),
  end: new Date(NOW + 4 * 86_400_000 + 3_600_000).toISOString(),
  reason: 'Weekly patching',
};

/** Payments with its failing production check in a deploy window. */
function systemInMaintenance() {
  const system = makeSystem();
  return makeSystem({
    reasons: system.reasons.map(reason => ({ ...reason, inMaintenance: true })),
    maintenance: {
      current: [
        {
          windowId: 'w-deploy',
          start: ago(5 * 60_000),
          end: in30Minutes,
          reason: 'Deploying 4.2',
        },
      ],
      next: nextSunday,
      inMaintenance: [{ checkId: GIT_CHECK, environment: 'production' }],
    },
  });
}

describe('EntityHealthContent in maintenance', () => {
  it('says until when and why the system is in maintenance, and the next window', async () => {
    await renderTab({
      api: makeApi({ getSystem: jest.fn(async () => systemInMaintenance()) }),
    });
    const banner = await screen.findByRole('region', { name: 'Maintenance' });
    expect(banner).toHaveTextContent(
      /In maintenance until \S.* — Deploying 4\.2/,
    );
    expect(banner).toHaveTextContent(
      /Next maintenance .+ – .+ — Weekly patching/,
    );
    expect(banner).toHaveTextContent(
      'their notifications wait for the window to end',
    );
  });

  it('shows a failing check in maintenance still failing, marked in words', async () => {
    await renderTab({
      api: makeApi({ getSystem: jest.fn(async () => systemInMaintenance()) }),
    });
    const failing = await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    // The status and its colour stay the true ones.
    expect(failing.querySelector('[data-status]')).toHaveAttribute(
      'data-status',
      'unhealthy',
    );
    expect(within(failing).getByText('In maintenance')).toBeInTheDocument();
    expect(failing).toHaveAccessibleName(
      /^Payments API in production: Unhealthy, in maintenance, last run/,
    );
    // Staging is not covered by the window.
    expect(
      within(cell(GIT_CHECK, 'staging')).queryByText('In maintenance'),
    ).toBeNull();

    const why = screen.getByRole('heading', { name: 'Why' }).parentElement!;
    const reason = within(why).getByText('[STATUS] (500) == 200')
      .parentElement!;
    expect(reason.querySelector('[data-status]')).toHaveAttribute(
      'data-status',
      'unhealthy',
    );
    expect(within(reason).getByText('In maintenance')).toBeInTheDocument();
  });

  it('shows only the next window while none is in force, and nothing without one', async () => {
    await renderTab({
      api: makeApi({
        getSystem: jest.fn(async () =>
          makeSystem({ maintenance: { current: [], next: nextSunday } }),
        ),
      }),
    });
    const banner = await screen.findByRole('region', { name: 'Maintenance' });
    expect(banner).not.toHaveTextContent('In maintenance until');
    expect(banner).toHaveTextContent(/Next maintenance/);
    expect(screen.queryByText('In maintenance')).toBeNull();
  });

  it('shows no maintenance where no window covers the system', async () => {
    await renderTab();
    await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    expect(screen.queryByRole('region', { name: 'Maintenance' })).toBeNull();
    expect(screen.queryByText('In maintenance')).toBeNull();
  });
});
