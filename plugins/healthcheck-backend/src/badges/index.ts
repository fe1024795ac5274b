/**
 * Health badges: `GET /v1/badges/systems/:namespace/:name`, as SVG or
 * shields.io endpoint JSON.
 */
export { badgeLoaders } from './badgeLoaders';
export { createBadgeRouter } from './badgeRouter';
export type { BadgeMeasurementQuery, BadgeRouterOptions } from './badgeRouter';
export {
  BADGES_PATH,
  badgeAuthPolicy,
  readBadgeSettings,
} from './badgeSettings';
export type { BadgeSettings } from './badgeSettings';
export {
  BADGE_FORMATS,
  BADGE_KINDS,
  BADGE_PERCENTILES,
  BADGE_STYLES,
  BADGE_WINDOWS,
  DEFAULT_BADGE_WINDOWS,
  InvalidBadgeRequestError,
  parseBadgeRequest,
} from './badgeRequest';
export type {
  BadgeFormat,
  BadgeKind,
  BadgePercentile,
  BadgeRequest,
  BadgeRequestParseResult,
  BadgeRequestProblem,
  BadgeStyle,
  BadgeWindow,
} from './badgeRequest';
export {
  STATUS_COLORS,
  badgeSubject,
  formatResponseTime,
  formatUptime,
  responseTimeBadge,
  responseTimeColor,
  statusBadge,
  statusMessage,
  uptimeBadge,
  uptimeColor,
} from './badgeContent';
export type { BadgeColor, BadgeContent, ResponseTimes } from './badgeContent';
export { renderBadgeSvg, toShieldsEndpoint } from './renderBadge';
export type { ShieldsEndpointBadge } from './renderBadge';
