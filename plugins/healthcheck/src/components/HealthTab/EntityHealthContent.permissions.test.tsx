import { screen, waitFor } from '@testing-library/react';
import { GIT_CHECK, renderTab } from './__testUtils__/healthTab';

// Its own file: usePermission caches an answer for the whole file, so a
// denying test after an allowing one could see the cached allow.
describe('EntityHealthContent without the run permission', () => {
  it('disables "Run now" with the reason for a user without the permission', async () => {
    const { api } = await renderTab({ allowRun: false });
    await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    // Text queries, not role queries: computing every button's accessible
    // name in a big table is slow enough in jsdom to time out on a busy CI.
    const runNow = () =>
      screen
        .getAllByText('Run now')
        .map(label => label.closest('button'))
        .filter(button => button?.hasAttribute('aria-describedby'));
    await waitFor(() => expect(runNow()).toHaveLength(2));
    for (const button of runNow()) {
      expect(button).toBeDisabled();
      expect(button).toHaveAccessibleDescription(
        'You need the healthcheck.check.run permission',
      );
    }
    expect(api.runCheck).not.toHaveBeenCalled();
  });
});
