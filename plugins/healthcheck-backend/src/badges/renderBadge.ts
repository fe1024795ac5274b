import { makeBadge } from 'badge-maker';
import { LRUCache } from 'lru-cache';
import { BadgeContent } from './badgeContent';
import { BadgeStyle } from './badgeRequest';

/**
 * Drawn badges, least recently used forgotten first: one per system and
 * kind for 10,000 systems, about 1 KB each.
 */
const drawn = new LRUCache<string, string>({ max: 10_000 });

/**
 * A badge as an SVG image, drawn by badge-maker (what shields.io uses). The
 * SVG carries the text as its `<title>` and `aria-label` too, for screen
 * readers; badge-maker escapes it. Drawing measures every character, and
 * a system's badge changes rarely while it is asked for often, so drawn
 * badges are remembered by their inputs.
 * @internal
 */
export function renderBadgeSvg(
  content: BadgeContent,
  style?: BadgeStyle,
): string {
  const key = [content.label, content.message, content.color, style].join(
    '\u0000',
  );
  let svg = drawn.get(key);
  if (svg === undefined) {
    svg = makeBadge({
      label: content.label,
      message: content.message,
      color: content.color,
      ...(style && { style }),
    });
    drawn.set(key, svg);
  }
  return svg;
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
