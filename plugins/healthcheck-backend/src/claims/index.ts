export { DatabaseClaimStore } from './DatabaseClaimStore';
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_INSTANCE_TTL_MS,
  InstanceMembership,
} from './InstanceMembership';
export type { InstanceMembershipOptions } from './InstanceMembership';
export { createClaimMetrics, noopClaimMetrics } from './metrics';
export type { ClaimMetrics, ClaimOutcome } from './metrics';
export { ownerOf } from './rendezvous';
export { TickClaimer } from './TickClaimer';
export { createTickClaims } from './createTickClaims';
export type { ClaimStats } from './TickClaimer';
