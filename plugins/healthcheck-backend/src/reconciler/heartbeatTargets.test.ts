import {
  heartbeatTargetOf,
  sliceIdOfHeartbeatTarget,
} from './heartbeatTargets';

describe('heartbeat targets', () => {
  it('name the slice, and give it back', () => {
    const sliceId = 'export~system:default/data~production';
    expect(heartbeatTargetOf(sliceId)).toBe(`heartbeat:${sliceId}`);
    expect(sliceIdOfHeartbeatTarget(heartbeatTargetOf(sliceId))).toBe(sliceId);
    expect(sliceIdOfHeartbeatTarget(sliceId)).toBe(sliceId);
  });
});
