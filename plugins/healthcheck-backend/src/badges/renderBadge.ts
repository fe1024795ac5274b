import { makeBadge } from 'badge-maker';
import { BadgeContent } from './badgeContent';
import { BadgeStyle } from './badgeRequest';

/**
 * A badge as an SVG image, drawn by badge-maker (what shields.io uses). The
 * SVG carries the text as its `<title>` and `aria-label` too, for screen
 * readers; badge-maker escapes it.
 * @internal
 */
export function renderBadgeSvg(
  content: BadgeContent,
  style?: BadgeStyle,
): string {
  return makeBadge({
    label: content.label,
    message: content.message,
    color: content.color,
    ...(style && { style }),
  });
}

/**
 * The JSON a shields.io endpoint badge reads
 * (https://shields.io/badges/endpoint-badge).
 * @internal
 */
export interface ShieldsEndpointBadge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: string;
  style?: BadgeStyle;
}

/**
 * A badge as shields.io endpoint JSON, for
 * `https://img.shields.io/endpoint?url=...` (which needs the badge to be
 * public) and for clients that draw their own.
 * @internal
 */
export function toShieldsEndpoint(
  content: BadgeContent,
  style?: BadgeStyle,
): ShieldsEndpointBadge {
  return {
    schemaVersion: 1,
    label: content.label,
    message: content.message,
    color: content.color,
    ...(style && { style }),
  };
}
