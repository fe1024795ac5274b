import { alertApiRef } from '@backstage/core-plugin-api';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import {
  CopyBadgeMarkdownButton,
  useCopyEntityBadgeMarkdown,
} from './CopyBadgeMarkdownButton';
import { paymentsApiComponent } from './__testUtils__/fixtures';

const BADGE_URL =
  'http://localhost:7007/api/healthcheck/v1/badges/systems/default/payments';

/** What an entity icon link does with the hook. */
function CopyLink() {
  const { copyBadgeMarkdown, ready } = useCopyEntityBadgeMarkdown();
  return (
    <button disabled={!ready} onClick={copyBadgeMarkdown}>
      Copy health badge
    </button>
  );
}

async function renderWithApis(element: JSX.Element) {
  const alertApi = { post: jest.fn(), alert$: jest.fn() };
  const badgeUrl = jest.fn(async () => BADGE_URL);
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, { badgeUrl }],
        [alertApiRef, alertApi],
      ]}
    >
      <EntityProvider entity={paymentsApiComponent}>{element}</EntityProvider>
    </TestApiProvider>,
  );
  return { alertApi, badgeUrl };
}

describe('CopyBadgeMarkdownButton', () => {
  it('copies the Markdown image of the badge and tells the user', async () => {
    const user = userEvent.setup();
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    const { alertApi, badgeUrl } = await renderWithApis(
      <CopyBadgeMarkdownButton
        systemRef="system:default/payments"
        name="Payments [EU]"
      />,
    );
    const button = screen.getByRole('button', { name: 'Copy badge Markdown' });
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);

    expect(badgeUrl).toHaveBeenCalledWith('system:default/payments');
    expect(writeText).toHaveBeenCalledWith(
      `![Payments \\[EU\\] health](${BADGE_URL})`,
    );
    expect(alertApi.post).toHaveBeenCalledWith({
      message: 'Copied the Markdown of the Payments [EU] health badge',
      severity: 'success',
      display: 'transient',
    });
  });

  it("copies the badge of the current entity's system", async () => {
    const user = userEvent.setup();
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    await renderWithApis(<CopyLink />);
    const link = screen.getByRole('button', { name: 'Copy health badge' });
    await waitFor(() => expect(link).toBeEnabled());
    await user.click(link);
    expect(writeText).toHaveBeenCalledWith(`![payments health](${BADGE_URL})`);
  });
});
