import type {
  AuthService,
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { catalogEntityReadPermission } from '@backstage/plugin-catalog-common/alpha';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { LRUCache } from 'lru-cache';
import { BadgeRouterOptions, unknownSystemError } from './badgeRouter';
import type { BadgeSettings } from './badgeSettings';

/**
 * How long a decision whether a caller may read a system is reused. Badges
 * are loaded in bursts (a README, a page of entities) and polled; a change
 * of the policy or the catalog reaches them this much later.
 */
export const BADGE_DECISION_TTL_MS = 10_000;

/** Decisions remembered: (caller, system) pairs. */
const DECISIONS_REMEMBERED = 20_000;

/**
 * Whose decisions these are, as a cache key: one per user, per service and
 * one for all anonymous readers, so no caller ever gets another's.
 * @internal
 */
export function readerKeyOf(credentials: BackstageCredentials): string {
  const principal = credentials.principal as {
    type: string;
    userEntityRef?: string;
    subject?: string;
  };
  if (principal.type === 'user') {
    return `user:${principal.userEntityRef}`;
  }
  if (principal.type === 'service') {
    return `service:${principal.subject}`;
  }
  return 'anonymous';
}

/**
 * The badge router's `authorize`: a badge shows only a system the caller
 * may read in the catalog, with their own credentials (the user cookie or
 * token, or a service's token). When badges are public, an anonymous
 * reader sees the systems an anonymous principal may read under the
 * permission policy and those `healthcheck.badges.publicSystems` lists; a
 * signed-in user sees those too, since they could load them signed out.
 * Any other system is a 404 worded as for a system that does not exist,
 * never a 403, so a badge does not tell whether a hidden system exists.
 *
 * Decisions are remembered for {@link BADGE_DECISION_TTL_MS} per caller and
 * system, so a page of badges costs one permission request per system.
 * @internal
 */
export function createBadgeAuthorizer(options: {
  httpAuth: HttpAuthService;
  auth: Pick<AuthService, 'getNoneCredentials'>;
  permissions: Pick<PermissionsService, 'authorize'>;
  settings: BadgeSettings;
  /** The clock of the remembered decisions; tests set it. */
  now?: () => number;
}): NonNullable<BadgeRouterOptions['authorize']> {
  const { httpAuth, auth, permissions, settings } = options;
  const decisions = new LRUCache<
    string,
    { allowed: boolean },
    { credentials: BackstageCredentials; systemRef: string }
  >({
    max: DECISIONS_REMEMBERED,
    ttl: BADGE_DECISION_TTL_MS,
    ...(options.now && { perf: { now: options.now }, ttlResolution: 0 }),
    // Concurrent asks share one request; a failed one is not remembered.
    fetchMethod: async (_key, _stale, { context }) => {
      const [decision] = await permissions.authorize(
        [
          {
            permission: catalogEntityReadPermission,
            resourceRef: context.systemRef,
          },
        ],
        { credentials: context.credentials },
      );
      return { allowed: decision.result === AuthorizeResult.ALLOW };
    },
  });

  async function mayRead(
    credentials: BackstageCredentials,
    systemRef: string,
  ): Promise<boolean> {
    const decision = await decisions.fetch(
      `${readerKeyOf(credentials)}\u0000${systemRef}`,
      { context: { credentials, systemRef } },
    );
    return decision!.allowed;
  }

  async function isPublic(systemRef: string): Promise<boolean> {
    if (!settings.public) {
      return false;
    }
    return (
      settings.publicSystems.has(systemRef) ||
      (await mayRead(await auth.getNoneCredentials(), systemRef))
    );
  }

  return async (req, { systemRef }) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service', 'none'],
      allowLimitedAccess: true,
    });
    const visible =
      readerKeyOf(credentials) === 'anonymous'
        ? await isPublic(systemRef)
        : (await mayRead(credentials, systemRef)) ||
          (await isPublic(systemRef));
    if (!visible) {
      throw unknownSystemError(systemRef);
    }
  };
}
