export { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
export { createHeartbeatOutage } from './heartbeatOutage';
export type { HeartbeatOutage } from './heartbeatOutage';
export { createHeartbeatProbeType } from './heartbeatProbeType';
export { createHeartbeatRouter, PING_PATH } from './heartbeatRouter';
export { PingRateLimiter } from './PingRateLimiter';
export { fixDemoPingTokens, readHeartbeatSettings } from './heartbeatSettings';
export { scheduleHeartbeatPruning } from './scheduleHeartbeatPruning';
