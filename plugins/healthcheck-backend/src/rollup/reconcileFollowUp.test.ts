import { createReconcileFollowUp } from './reconcileFollowUp';

describe('createReconcileFollowUp', () => {
  it('checks the environments of the changed systems 500 at a time, then requests their rollups', async () => {
    const calls: string[] = [];
    const followUp = createReconcileFollowUp({
      transitions: {
        checkSystems: async refs => {
          calls.push(`check ${refs.length}`);
          return [];
        },
      },
      requestRollup: async () => {
        calls.push('request');
      },
    });
    const systems = Array.from(
      { length: 1_200 },
      (_, i) => `system:default/s-${i}`,
    );

    await followUp(systems);

    const summary = calls.filter(
      (call, i) => call !== 'request' || calls[i - 1] !== 'request',
    );
    expect(summary).toEqual([
      'check 500',
      'request',
      'check 500',
      'request',
      'check 200',
      'request',
    ]);
    expect(calls.filter(call => call === 'request')).toHaveLength(1_200);
  });
});
