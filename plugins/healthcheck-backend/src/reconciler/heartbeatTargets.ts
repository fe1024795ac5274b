/** A heartbeat slice's target: its id, as no probe goes anywhere. */
const TARGET_PREFIX = 'heartbeat:';

/**
 * The target the reconciler gives a heartbeat slice.
 * @internal
 */
export function heartbeatTargetOf(sliceId: string): string {
  return `${TARGET_PREFIX}${sliceId}`;
}

/**
 * The slice a heartbeat target names (a bare slice id is taken as is).
 * @internal
 */
export function sliceIdOfHeartbeatTarget(target: string): string {
  return target.startsWith(TARGET_PREFIX)
    ? target.slice(TARGET_PREFIX.length)
    : target;
}
