import { HttpRouterServiceAuthPolicy } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { canonicalSystemRef } from '../permissions/checkResource';

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
  /**
   * `healthcheck.badges.publicSystems`: canonical refs of systems whose
   * badges anonymous readers may load even where the permission policy
   * does not let an anonymous caller read them in the catalog. Only with
   * {@link BadgeSettings.public}.
   */
  publicSystems: ReadonlySet<string>;
}

const PUBLIC_SYSTEMS_KEY = 'healthcheck.badges.publicSystems';

/**
 * Reads {@link BadgeSettings} from the config.
 * @throws when `healthcheck.badges.public` is not a boolean, or an entry of
 * `healthcheck.badges.publicSystems` is not the ref of a System.
 * @internal
 */
export function readBadgeSettings(config: Config): BadgeSettings {
  const written = config.getOptionalStringArray(PUBLIC_SYSTEMS_KEY) ?? [];
  const problems: string[] = [];
  const publicSystems = new Set<string>();
  written.forEach((ref, index) => {
    const system = canonicalSystemRef(ref, 'default');
    if (system) {
      publicSystems.add(system);
    } else {
      problems.push(
        `${PUBLIC_SYSTEMS_KEY}[${index}]: ${JSON.stringify(
          ref,
        )} is not the ref of a System, such as system:default/payments or payments`,
      );
    }
  });
  if (problems.length > 0) {
    throw new InputError(`Invalid badge settings: ${problems.join('; ')}`);
  }
  return {
    public: config.getOptionalBoolean('healthcheck.badges.public') ?? false,
    publicSystems,
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
  settings: Pick<BadgeSettings, 'public'>,
): HttpRouterServiceAuthPolicy {
  return {
    path: BADGES_PATH,
    allow: settings.public ? 'unauthenticated' : 'user-cookie',
  };
}
