import { SystemListResponse } from '@vigil/plugin-healthcheck-common';
import { listConcerns } from './useLiveRefresh';

const none = { healthy: 0, degraded: 0, unhealthy: 0, unknown: 0, paused: 0 };

function listOf(
  liveKeys: string[],
  extra: Partial<SystemListResponse> = {},
): SystemListResponse {
  return {
    items: liveKeys.map(liveKey => ({ liveKey } as any)),
    totalCount: liveKeys.length,
    counts: { ...none, healthy: liveKeys.length },
    ...extra,
  };
}

describe('listConcerns', () => {
  it('concerns the systems on the list', () => {
    expect(listConcerns(listOf(['a', 'b']), 'b')).toBe(true);
  });

  it('does not concern a key a list of every system it counts does not hold: a system the user cannot see', () => {
    expect(listConcerns(listOf(['a', 'b']), 'hidden')).toBe(false);
  });

  it('concerns any key while other pages exist, since the change may move a system onto this one', () => {
    expect(listConcerns(listOf(['a'], { nextCursor: 'MQ' }), 'other')).toBe(
      true,
    );
  });

  it('concerns any key while a status filter hides counted systems, whose change may bring them in', () => {
    expect(
      listConcerns(
        listOf(['a'], { counts: { ...none, healthy: 1, unhealthy: 2 } }),
        'other',
      ),
    ).toBe(true);
  });
});
