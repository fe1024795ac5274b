export { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
export { createHeartbeatProbeType } from './heartbeatProbeType';
export { createHeartbeatRouter, PING_PATH } from './heartbeatRouter';
export { PingRateLimiter } from './PingRateLimiter';
export { fixDemoPingTokens, readHeartbeatSettings } from './heartbeatSettings';
export { scheduleHeartbeatPruning } from './scheduleHeartbeatPruning';
