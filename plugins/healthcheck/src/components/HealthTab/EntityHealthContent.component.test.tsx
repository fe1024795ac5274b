import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  API_CHECK,
  componentEntity,
  GIT_CHECK,
  makeApi,
  makeSystem,
  renderTab,
} from './__testUtils__/healthTab';

/** The payments system, with the components each check targets. */
function systemTargeting(components: Record<string, string[]>) {
  const system = makeSystem();
  return makeSystem({
    checks: system.checks.map(check => ({
      ...check,
      ...(components[check.checkId] && {
        components: components[check.checkId],
      }),
    })),
  });
}

/** The caption above a Component's Health tab. */
function caption() {
  return screen.getByText(/This component is part of|None of the/);
}

describe('EntityHealthContent on a Component page', () => {
  it('shows only the checks of its system that target the component, and says so', async () => {
    const api = makeApi({
      getSystem: jest.fn(async () =>
        systemTargeting({
          // Written another way than the entity's ref: compared canonically.
          [GIT_CHECK]: ['Component:default/Payments-Web'],
          [API_CHECK]: ['component:default/payments-db-proxy'],
        }),
      ),
    });
    await renderTab({ entity: componentEntity, api });

    expect(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    ).toBeInTheDocument();
    expect(screen.queryByTestId(`cell-${API_CHECK}-production`)).toBeNull();
    expect(screen.getByText('1 check × 2 environments')).toBeInTheDocument();
    expect(api.getSystem).toHaveBeenCalledWith('system:default/payments');
    expect(caption()).toHaveTextContent(
      'This component is part of payments. Shown is the one check of that system that targets it. A check names the components it probes in spec.components.',
    );
    expect(
      within(caption()).getByRole('link', { name: /payments/ }),
    ).toHaveAttribute('href', '/catalog/default/system/payments');
    // The rollup stays the system's.
    expect(screen.getByText('3 of 4')).toBeInTheDocument();

    await userEvent.click(
      screen.getByRole('button', { name: 'Show all 2 checks of the system' }),
    );
    expect(
      await screen.findByTestId(`cell-${API_CHECK}-production`),
    ).toBeInTheDocument();
    expect(screen.getByText('2 checks × 2 environments')).toBeInTheDocument();
    expect(caption()).toHaveTextContent(
      'Shown are all 2 checks of that system; one of them targets this component.',
    );

    await userEvent.click(
      screen.getByRole('button', {
        name: 'Show only the checks that target this component',
      }),
    );
    expect(screen.queryByTestId(`cell-${API_CHECK}-production`)).toBeNull();
  });

  it('says when no check of its system targets the component, and shows them all on request', async () => {
    await renderTab({ entity: componentEntity });

    expect(await screen.findByText(/None of the/)).toHaveTextContent(
      'None of the 2 checks of payments (the system this component is part of) target it. A check names the components it probes in spec.components.',
    );
    expect(screen.queryByTestId(`cell-${GIT_CHECK}-production`)).toBeNull();
    expect(screen.queryByText('Why')).toBeNull();

    await userEvent.click(
      screen.getByRole('button', { name: 'Show all 2 checks of the system' }),
    );
    expect(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    ).toBeInTheDocument();
    expect(screen.getByTestId(`cell-${API_CHECK}-production`)).toBeVisible();
    expect(caption()).toHaveTextContent(
      'Shown are all 2 checks of that system; none of them targets this component.',
    );
  });

  it('offers no switch when every check of the system targets the component', async () => {
    const api = makeApi({
      getSystem: jest.fn(async () =>
        systemTargeting({
          [GIT_CHECK]: ['component:default/payments-web'],
          [API_CHECK]: [
            'component:default/payments-db-proxy',
            'component:default/payments-web',
          ],
        }),
      ),
    });
    await renderTab({ entity: componentEntity, api });

    expect(
      await screen.findByTestId(`cell-${API_CHECK}-production`),
    ).toBeInTheDocument();
    expect(caption()).toHaveTextContent(
      'Shown are the 2 checks of that system that target it.',
    );
    expect(screen.queryByRole('button', { name: /Show all/ })).toBeNull();
  });

  it('tells how to add a check when its system has none', async () => {
    await renderTab({
      entity: componentEntity,
      api: makeApi({
        getSystem: jest.fn(async () => makeSystem({ checks: [] })),
      }),
    });
    expect(
      await screen.findByText('No health checks for this system yet'),
    ).toBeInTheDocument();
    expect(caption()).toHaveTextContent('This component is part of payments.');
  });

  it('shows a System every check, whatever it targets, without the caption', async () => {
    await renderTab({
      api: makeApi({
        getSystem: jest.fn(async () =>
          systemTargeting({ [GIT_CHECK]: ['component:default/payments-web'] }),
        ),
      }),
    });
    expect(
      await screen.findByTestId(`cell-${API_CHECK}-production`),
    ).toBeInTheDocument();
    expect(screen.getByTestId(`cell-${GIT_CHECK}-production`)).toBeVisible();
    expect(screen.queryByText(/This component is part of/)).toBeNull();
  });
});
