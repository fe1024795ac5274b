import { discoveryApiRef, fetchApiRef } from '@backstage/core-plugin-api';
import { catalogApiRef, entityRouteRef } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import {
  PermissionApi,
  permissionApiRef,
} from '@backstage/plugin-permission-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import { responseError } from './__testUtils__/responseError';
import { CheckForm, CheckFormProps } from './CheckForm';

const apiCheck: CheckDetails = {
  id: 'payments-http',
  title: 'Payments HTTP',
  revision: 3,
  spec: {
    type: 'http',
    target: 'https://payments.example/{{ environment.name }}/health',
    interval: '30s',
    conditions: [
      { condition: '[STATUS] == 200', severity: 'unhealthy' },
      '[RESPONSE_TIME] < 500',
    ],
    systems: ['system:default/payments'],
    environmentOverrides: {
      production: { target: 'https://payments.example/health' },
    },
    config: { method: 'HEAD' },
    thresholds: { failure: 2 },
  },
  source: {
    kind: 'api',
    createdBy: 'user:default/ada',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedBy: 'user:default/ada',
    updatedAt: '2025-01-02T00:00:00.000Z',
  },
};

const gitOpsCheck: CheckDetails = {
  id: 'healthcheck:default/search-api',
  title: 'Search API',
  spec: {
    type: 'http',
    target: 'https://search.example/health',
    systems: ['system:default/search'],
    conditions: ['[STATUS] == 200'],
  },
  source: {
    kind: 'gitops',
    entityRef: 'healthcheck:default/search-api',
    location: 'url:https://git.example/search/blob/main/catalog-info.yaml',
  },
};

const systemEntity = (name: string) => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name, namespace: 'default' },
  spec: {},
});

async function renderForm(props: CheckFormProps, api: Partial<HealthcheckApi>) {
  const fetch = jest.fn(
    async () =>
      ({
        ok: true,
        json: async () => ({ items: ['dns', 'grpc', 'http', 'tcp', 'tls'] }),
      } as Response),
  );
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, api],
        [
          catalogApiRef,
          catalogApiMock.mock({
            getEntities: jest.fn(async () => ({
              items: [systemEntity('payments'), systemEntity('search')],
            })),
          }),
        ],
        [
          permissionApiRef,
          {
            authorize: async () => ({ result: 'ALLOW' }),
          } as unknown as PermissionApi,
        ],
        [discoveryApiRef, mockApis.discovery()],
        [fetchApiRef, { fetch }],
      ]}
    >
      <CheckForm {...props} />
    </TestApiProvider>,
    {
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    },
  );
  return { fetch };
}

/** Pastes into a field; typed text would take [ and { for key names. */
async function paste(field: RegExp | string | HTMLElement, text: string) {
  await userEvent.click(
    field instanceof HTMLElement ? field : screen.getByLabelText(field),
  );
  await userEvent.paste(text);
}

function overrideGroup(number: number) {
  return within(
    screen.getByRole('group', { name: `Environment override ${number}` }),
  );
}

/** Fills what a create needs. */
async function fillRequired() {
  await userEvent.type(screen.getByLabelText('ID'), 'payments-http');
  await paste(/^Target/, 'https://{{ system.name }}.example/health');
  await userEvent.type(
    screen.getByLabelText(/^Systems/),
    'system:default/payments{Enter}',
  );
}

describe('CheckForm', () => {
  it('creates a check from what was filled in, with the probe types the backend knows', async () => {
    const created: CheckDetails = { ...apiCheck, id: 'payments-http' };
    const createCheck = jest.fn(async () => created);
    const onSaved = jest.fn();
    const { fetch } = await renderForm({ onSaved }, { createCheck });

    await waitFor(() =>
      expect(
        within(screen.getByLabelText(/^Type/)).getByRole('option', {
          name: 'grpc',
        }),
      ).toBeInTheDocument(),
    );
    expect(fetch).toHaveBeenCalledWith(
      'http://example.com/api/healthcheck/v1/probe-types',
      expect.objectContaining({ method: 'GET' }),
    );

    await fillRequired();
    await userEvent.type(screen.getByLabelText('Title'), 'Payments HTTP');
    await userEvent.type(screen.getByLabelText('Interval'), '30s');
    await userEvent.type(screen.getByLabelText('Failure threshold'), '3');
    await paste('Condition 1', '[STATUS] == 200');
    // A row left blank is not sent.
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await paste('Condition 3', '[RESPONSE_TIME] < 500');
    // Several systems at once, separated by commas.
    await userEvent.type(screen.getByLabelText(/^Systems/), 'search,');
    await userEvent.type(
      screen.getByLabelText(/^Components/),
      'payments-service{Enter}',
    );
    expect(
      within(
        screen.getByRole('list', { name: 'Targeted components' }),
      ).getByText('payments-service'),
    ).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Environments'), 'production');
    await userEvent.click(screen.getByLabelText(/^Paused/));

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(created));
    expect(createCheck).toHaveBeenCalledWith({
      id: 'payments-http',
      title: 'Payments HTTP',
      spec: {
        type: 'http',
        target: 'https://{{ system.name }}.example/health',
        interval: '30s',
        conditions: ['[STATUS] == 200', '[RESPONSE_TIME] < 500'],
        thresholds: { failure: 3 },
        systems: ['system:default/payments', 'search'],
        components: ['payments-service'],
        environments: ['production'],
        paused: true,
      },
    });
  });

  it('says what is missing before asking the backend', async () => {
    const createCheck = jest.fn();
    await renderForm({}, { createCheck });
    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    expect(screen.getByLabelText(/^Target/)).toHaveAccessibleDescription(
      'Say what to probe',
    );
    expect(screen.getByLabelText(/^Systems/)).toHaveAccessibleDescription(
      'Assign the check to at least one system',
    );
    expect(screen.getByLabelText('ID')).toHaveAccessibleDescription(
      /Give an id/,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(
      '3 problems are shown at the fields below.',
    );
    expect(createCheck).not.toHaveBeenCalled();
  });

  it("shows each of the backend's validation problems at its field, and the others at the top", async () => {
    const createCheck = jest.fn(async () => {
      throw await responseError(400, {
        name: 'InputError',
        message: 'Invalid check, 5 problems: ...',
        problems: [
          {
            path: ['spec', 'interval'],
            reason: '"5x" is not a duration: use a number and a unit',
          },
          {
            path: ['spec', 'conditions', 1],
            reason: '"[BODY.status == UP", at position 0: unbalanced brackets',
          },
          {
            path: ['spec', 'systems', 0],
            reason: 'is a component, not a system',
          },
          { path: ['spec', 'thresholds', 'success'], reason: 'must be >= 1' },
          {
            path: ['spec', 'environmentOverrides', 'prod', 'target'],
            reason: 'unknown placeholder {{ region }}',
          },
        ],
      });
    });
    await renderForm({}, { createCheck });
    await fillRequired();
    await userEvent.type(screen.getByLabelText('Interval'), '5m');
    await paste('Condition 1', '[STATUS] == 200');
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await paste('Condition 3', '[BODY].status == UP');

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    expect(
      await screen.findByText(/"5x" is not a duration/),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Interval')).toHaveAccessibleDescription(
      '"5x" is not a duration: use a number and a unit',
    );
    // The second condition sent is in the third row: the blank one is skipped.
    expect(screen.getByLabelText('Condition 3')).toHaveAccessibleDescription(
      '"[BODY.status == UP", at position 0: unbalanced brackets',
    );
    expect(screen.getByLabelText(/^Systems/)).toHaveAccessibleDescription(
      'system:default/payments: is a component, not a system',
    );
    expect(
      screen.getByLabelText('Success threshold'),
    ).toHaveAccessibleDescription('must be >= 1');
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('The check was not created');
    // The form has no override for prod, so the problem is said at the top.
    expect(alert).toHaveTextContent(
      'spec.environmentOverrides.prod.target: unknown placeholder {{ region }}',
    );
    expect(alert).toHaveTextContent(
      '4 problems are shown at the fields below.',
    );

    // Editing a field clears its problem.
    await userEvent.clear(screen.getByLabelText('Interval'));
    await userEvent.type(screen.getByLabelText('Interval'), '5s');
    expect(screen.getByLabelText('Interval')).not.toHaveAccessibleDescription(
      /not a duration/,
    );
  });

  it('shows a conflict at the top, in the words of the backend', async () => {
    const updateCheck = jest.fn(async () => {
      throw await responseError(409, {
        name: 'ConflictError',
        message:
          "Check 'payments-http' is at revision 4, not 3; reload it and try again",
      });
    });
    await renderForm(
      { checkId: 'payments-http' },
      { getCheck: async () => apiCheck, updateCheck },
    );
    await userEvent.click(
      await screen.findByRole('button', { name: 'Save changes' }),
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      "Check 'payments-http' is at revision 4, not 3; reload it and try again",
    );
    expect(alert).not.toHaveTextContent('Request failed');
  });

  it('edits an API check, keeping what was not changed and sending its revision', async () => {
    const updateCheck = jest.fn(async () => ({ ...apiCheck, revision: 4 }));
    const onSaved = jest.fn();
    const getCheck = jest.fn(async () => apiCheck);
    await renderForm(
      { checkId: 'payments-http', onSaved },
      { getCheck, updateCheck },
    );

    const interval = await screen.findByLabelText('Interval');
    expect(getCheck).toHaveBeenCalledWith('payments-http');
    expect(interval).toHaveValue('30s');
    expect(screen.getByLabelText('ID')).toHaveValue('payments-http');
    expect(screen.getByLabelText('ID')).toBeDisabled();
    expect(screen.getByLabelText('Condition 1')).toHaveValue('[STATUS] == 200');
    expect(screen.getByLabelText('Condition 2')).toHaveValue(
      '[RESPONSE_TIME] < 500',
    );
    expect(screen.getByLabelText('Severity of condition 2')).toHaveValue(
      'unhealthy',
    );
    expect(overrideGroup(1).getByLabelText(/^Environment/)).toHaveValue(
      'production',
    );
    expect(overrideGroup(1).getByLabelText('Target')).toHaveValue(
      'https://payments.example/health',
    );
    expect(
      screen.getByRole('listitem', { name: 'system:default/payments' }),
    ).toBeInTheDocument();

    await userEvent.clear(interval);
    await userEvent.type(interval, '1m');
    await userEvent.clear(screen.getByLabelText('Failure threshold'));
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(updateCheck).toHaveBeenCalledWith('payments-http', {
      title: 'Payments HTTP',
      revision: 3,
      spec: {
        type: 'http',
        target: 'https://payments.example/{{ environment.name }}/health',
        interval: '1m',
        conditions: [
          { condition: '[STATUS] == 200', severity: 'unhealthy' },
          '[RESPONSE_TIME] < 500',
        ],
        systems: ['system:default/payments'],
        environmentOverrides: {
          production: { target: 'https://payments.example/health' },
        },
        config: { method: 'HEAD' },
      },
    });
  });

  it('creates a check with a degraded condition and an environment override', async () => {
    const createCheck = jest.fn(async () => apiCheck);
    const onSaved = jest.fn();
    await renderForm({ onSaved }, { createCheck });
    await fillRequired();

    await paste('Condition 1', '[STATUS] == 200');
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await paste('Condition 2', '[RESPONSE_TIME] < 500');
    await userEvent.selectOptions(
      screen.getByLabelText('Severity of condition 2'),
      'degraded',
    );
    // A row added by mistake, and removed.
    await userEvent.click(
      screen.getByRole('button', { name: 'Add condition' }),
    );
    await paste('Condition 3', '[IP] == 10.0.0.1');
    await userEvent.click(
      screen.getByRole('button', { name: 'Remove condition 3' }),
    );
    expect(screen.queryByLabelText('Condition 3')).not.toBeInTheDocument();

    await userEvent.click(
      screen.getByRole('button', { name: 'Add environment override' }),
    );
    const override = overrideGroup(1);
    // The new override's environment has the focus, to type its name at once.
    expect(override.getByLabelText(/^Environment/)).toHaveFocus();
    await userEvent.paste('eu-west');
    await paste(override.getByLabelText('Target'), 'https://eu.example/health');
    await paste(
      override.getByLabelText('Probe config patch (JSON)'),
      '{ "headers": { "Authorization": null } }',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(createCheck).toHaveBeenCalledWith({
      id: 'payments-http',
      spec: {
        type: 'http',
        target: 'https://{{ system.name }}.example/health',
        conditions: [
          '[STATUS] == 200',
          { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' },
        ],
        systems: ['system:default/payments'],
        environmentOverrides: {
          'eu-west': {
            target: 'https://eu.example/health',
            config: { headers: { Authorization: null } },
          },
        },
      },
    });
  });

  it('judges the spec by the validator the catalog and the API use, before asking the backend', async () => {
    const createCheck = jest.fn();
    await renderForm({}, { createCheck });
    await fillRequired();
    await userEvent.type(screen.getByLabelText('Interval'), '5x');
    await paste('Condition 1', '[BODY.status == UP');

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    expect(screen.getByLabelText('Interval')).toHaveAccessibleDescription(
      '"5x" is not a duration: unknown unit "x" at position 1 (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
    );
    expect(screen.getByLabelText('Condition 1')).toHaveAccessibleDescription(
      '"[BODY.status == UP", at position 0: "[" is never closed',
    );
    expect(createCheck).not.toHaveBeenCalled();
  });

  it('refuses a second override of one environment before asking the backend', async () => {
    const createCheck = jest.fn();
    await renderForm({}, { createCheck });
    await fillRequired();
    const add = screen.getByRole('button', {
      name: 'Add environment override',
    });
    await userEvent.click(add);
    await paste(overrideGroup(1).getByLabelText(/^Environment/), 'Production');
    await userEvent.click(add);
    await paste(overrideGroup(2).getByLabelText(/^Environment/), 'production');

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    expect(
      overrideGroup(2).getByLabelText(/^Environment/),
    ).toHaveAccessibleDescription(
      'names the same environment as "Production" (names are compared without regard to case); merge the two',
    );
    expect(createCheck).not.toHaveBeenCalled();
  });

  it("shows the backend's problems of an override at its fields", async () => {
    const createCheck = jest.fn(async () => {
      throw await responseError(400, {
        name: 'InputError',
        message: 'Invalid check, 2 problems: ...',
        problems: [
          {
            path: ['spec', 'environmentOverrides', 'eu-west', 'target'],
            reason: 'unknown placeholder {{ region }}',
          },
          {
            path: [
              'spec',
              'environmentOverrides',
              'eu-west',
              'config',
              'method',
            ],
            reason: 'must be GET or HEAD',
          },
        ],
      });
    });
    await renderForm({}, { createCheck });
    await fillRequired();
    await userEvent.click(
      screen.getByRole('button', { name: 'Add environment override' }),
    );
    const override = overrideGroup(1);
    await paste(override.getByLabelText(/^Environment/), 'eu-west');
    await paste(
      override.getByLabelText('Target'),
      'https://{{ system.name }}.example/health',
    );
    await paste(
      override.getByLabelText('Probe config patch (JSON)'),
      '{ "method": "PUT" }',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Create check' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      '2 problems are shown at the fields below.',
    );
    expect(override.getByLabelText('Target')).toHaveAccessibleDescription(
      'unknown placeholder {{ region }}',
    );
    expect(
      override.getByLabelText('Probe config patch (JSON)'),
    ).toHaveAccessibleDescription('method: must be GET or HEAD');

    // Editing the target clears its problem, not the config's.
    await userEvent.type(override.getByLabelText('Target'), '/');
    expect(override.getByLabelText('Target')).not.toHaveAccessibleDescription(
      /unknown placeholder/,
    );
    expect(
      override.getByLabelText('Probe config patch (JSON)'),
    ).toHaveAccessibleDescription('method: must be GET or HEAD');
  });

  it('saves a check with severities and overrides unchanged when they are not touched', async () => {
    const check: CheckDetails = {
      ...apiCheck,
      spec: {
        ...apiCheck.spec,
        conditions: [
          '[STATUS] == 200',
          { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' },
          { condition: '[BODY].status == UP', severity: 'unhealthy' },
        ],
        environmentOverrides: {
          production: { target: 'https://payments.example/health' },
          'eu-west': {
            config: { headers: { Authorization: 'Bearer eu', Accept: null } },
          },
          Staging: {},
        },
      },
    };
    const updateCheck = jest.fn(async () => check);
    const onSaved = jest.fn();
    await renderForm(
      { checkId: check.id, onSaved },
      { getCheck: async () => check, updateCheck },
    );

    expect(await screen.findByLabelText('Severity of condition 2')).toHaveValue(
      'degraded',
    );
    expect(screen.getByLabelText('Severity of condition 3')).toHaveValue(
      'unhealthy',
    );
    expect(
      JSON.parse(
        (
          overrideGroup(2).getByLabelText(
            'Probe config patch (JSON)',
          ) as HTMLTextAreaElement
        ).value,
      ),
    ).toEqual({ headers: { Authorization: 'Bearer eu', Accept: null } });
    expect(overrideGroup(3).getByLabelText(/^Environment/)).toHaveValue(
      'Staging',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(updateCheck).toHaveBeenCalledWith(check.id, {
      title: check.title,
      revision: check.revision,
      spec: check.spec,
    });
  });

  it('shows a GitOps check read-only, with a link to its file in Git', async () => {
    const updateCheck = jest.fn();
    await renderForm(
      { checkId: gitOpsCheck.id, onCancel: jest.fn() },
      { getCheck: async () => gitOpsCheck, updateCheck },
    );

    expect(
      await screen.findByText('This check is managed in Git'),
    ).toBeInTheDocument();
    expect(screen.getByText(/is edited there/)).toBeInTheDocument();
    expect(
      screen.getByRole('link', { name: /Open the file in Git/ }),
    ).toHaveAttribute(
      'href',
      'https://git.example/search/blob/main/catalog-info.yaml',
    );
    const definition = within(
      screen.getByRole('table', { name: 'Check definition' }),
    );
    expect(
      definition.getByText('https://search.example/health'),
    ).toBeInTheDocument();
    expect(definition.getByText('[STATUS] == 200')).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Save changes' }),
    ).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close' })).toBeInTheDocument();
  });

  it('offers a retry when the check cannot be loaded', async () => {
    const getCheck = jest
      .fn<Promise<CheckDetails>, [string]>()
      .mockRejectedValueOnce(new Error('backend unreachable'))
      .mockResolvedValue(apiCheck);
    await renderForm({ checkId: 'payments-http' }, { getCheck });
    expect(
      await screen.findByText(/Could not load the check/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('Interval')).toHaveValue('30s');
  });
});
