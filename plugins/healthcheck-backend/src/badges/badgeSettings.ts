import { HttpRouterServiceAuthPolicy } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';

/**
 * Where the badges are served, under the plugin's router; the path of their
 * auth policy.
 * @internal
 */
export const BADGES_PATH = '/v1/badges';

/**
 * How badges are served.
 * @internal
 */
export interface BadgeSettings {
  /**
   * `healthcheck.badges.public`: whether anonymous readers may load badges
   * (and nothing else). Default false: badges need a Backstage user, who may
   * present the user cookie (`<img src>` cannot send a token).
   */
  public: boolean;
}

/**
 * Reads {@link BadgeSettings} from the config.
 * @throws when `healthcheck.badges.public` is not a boolean.
 * @internal
 */
export function readBadgeSettings(config: Config): BadgeSettings {
  return {
    public: config.getOptionalBoolean('healthcheck.badges.public') ?? false,
  };
}

/**
 * The auth policy for the badge routes: `unauthenticated` when badges are
 * public, otherwise `user-cookie`, so the frontend's `<img>` (which sends the
 * Backstage user cookie, not a token) may load them. Either way it covers
 * {@link BADGES_PATH} alone; every other route keeps the default policy.
 * @internal
 */
export function badgeAuthPolicy(
  settings: BadgeSettings,
): HttpRouterServiceAuthPolicy {
  return {
    path: BADGES_PATH,
    allow: settings.public ? 'unauthenticated' : 'user-cookie',
  };
}
