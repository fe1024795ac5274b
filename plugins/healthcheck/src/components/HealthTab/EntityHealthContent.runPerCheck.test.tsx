import { screen, waitFor } from '@testing-library/react';
import { API_CHECK, GIT_CHECK, renderTab } from './__testUtils__/healthTab';

// Its own file: usePermission caches answers for the whole file.
describe('EntityHealthContent with the run permission on some checks', () => {
  it('asks about each check by its id, and enables "Run now" only where the policy allows it', async () => {
    const asked: string[] = [];
    await renderTab({
      allowRun: checkId => {
        asked.push(checkId);
        return checkId === API_CHECK;
      },
    });
    await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    // Text queries, not role queries: see EntityHealthContent.permissions.test.
    const runNowButtons = () =>
      screen.getAllByText('Run now').map(label => label.closest('button')!);
    await waitFor(() =>
      expect(
        runNowButtons().map(button => [
          button.getAttribute('aria-label'),
          button.disabled,
        ]),
      ).toEqual([
        // The GitOps check's row, first: disabled, with the reason.
        [null, true],
        ['Run Payments DB now', false],
      ]),
    );
    expect(asked).toEqual(expect.arrayContaining([API_CHECK, GIT_CHECK]));
  });
});
