import type { HealthCheckSpecProblem } from '@vigil/plugin-healthcheck-common';
import type {
  BackstageCredentials,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError, NotFoundError } from '@backstage/errors';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  PolicyDecision,
  ResourcePermission,
} from '@backstage/plugin-permission-common';
import {
  createConditionAuthorizer,
  PermissionRuleset,
} from '@backstage/plugin-permission-node';
import {
  healthcheckCheckReadPermission,
  RESOURCE_TYPE_HEALTHCHECK_CHECK,
} from '@vigil/plugin-healthcheck-common';
import { HealthCheckResource, systemRefsOf } from './checkResource';
import { readableEntityRefs } from './readableEntityRefs';
import { healthcheckCheckPermissionRules } from './rules';

/**
 * A permission decided per check.
 * @internal
 */
export type CheckPermission = ResourcePermission<
  typeof RESOURCE_TYPE_HEALTHCHECK_CHECK
>;

/**
 * Whether a caller who can read the `readable` systems may see the check:
 * only if it names no system they cannot read (nor any entry that names no
 * System at all), so a check tells nobody about a system hidden from them.
 * @internal
 */
export function namesOnlyReadableSystems(
  check: Pick<HealthCheckResource, 'systems'>,
  readable: ReadonlySet<string>,
): boolean {
  return check.systems.every(ref => ref !== undefined && readable.has(ref));
}

/**
 * One problem per entry of `spec.systems` that names no system the caller
 * can read. The reason is the same for a system that does not exist and
 * one that is hidden, so it does not tell them apart.
 * @internal
 */
export function unreadableSystemProblems(
  written: readonly string[],
  resolved: ReadonlyArray<string | undefined>,
  readable: ReadonlySet<string>,
): HealthCheckSpecProblem[] {
  return written.flatMap((ref, index) => {
    const system = resolved[index];
    return system !== undefined && readable.has(system)
      ? []
      : [
          {
            path: ['spec', 'systems', index],
            reason: `there is no system ${JSON.stringify(
              ref,
            )} that you can read`,
          },
        ];
  });
}

/** The plugin's own rules, for when no registry's ruleset is given. */
const ownRuleset: PermissionRuleset<HealthCheckResource> = {
  getRuleByName(name) {
    const rule = Object.values(healthcheckCheckPermissionRules).find(
      r => r.name === name,
    );
    if (!rule) {
      throw new Error(`There is no permission rule ${name} for health checks`);
    }
    return rule as ReturnType<
      PermissionRuleset<HealthCheckResource>['getRuleByName']
    >;
  },
};

/**
 * Who may see and do what with which check: the permission policy's
 * decision about the check (conditions applied here, to the loaded check),
 * and on top of any policy, the catalog: a caller sees a check only if they
 * can read, with their own credentials, every system it names.
 *
 * A check the caller may not see is answered as one that does not exist
 * (404), never 403, so its existence does not leak; 403 is for a check
 * they see but may not change or run.
 * @internal
 */
export class CheckAccess {
  readonly #catalog: Pick<CatalogService, 'getEntitiesByRefs'>;
  readonly #permissions: Pick<PermissionsService, 'authorizeConditional'>;
  readonly #allows: (
    decision: PolicyDecision,
    check: HealthCheckResource,
  ) => boolean;

  constructor(options: {
    catalog: Pick<CatalogService, 'getEntitiesByRefs'>;
    permissions: Pick<PermissionsService, 'authorizeConditional'>;
    /** The registry's ruleset, with rules that modules add; the plugin's own by default. */
    ruleset?: PermissionRuleset<HealthCheckResource>;
  }) {
    this.#catalog = options.catalog;
    this.#permissions = options.permissions;
    this.#allows = createConditionAuthorizer(options.ruleset ?? ownRuleset);
  }

  /** Of some System refs (canonical), those the caller can read in the catalog. */
  async readableSystems(
    refs: Iterable<string | undefined>,
    credentials: BackstageCredentials,
  ): Promise<Set<string>> {
    // Only refs of kind System reach here (see systemRefsOf), so what the
    // catalog finds under them is a System.
    return await readableEntityRefs(this.#catalog, refs, credentials);
  }

  /**
   * The checks the caller may see, in their order: those whose systems
   * they can all read and that the policy lets them read.
   */
  async visible<T>(
    checks: readonly T[],
    resourceOf: (check: T) => HealthCheckResource,
    credentials: BackstageCredentials,
  ): Promise<T[]> {
    if (checks.length === 0) {
      return [];
    }
    const resources = checks.map(resourceOf);
    const [readable, [decision]] = await Promise.all([
      this.readableSystems(
        resources.flatMap(r => r.systems),
        credentials,
      ),
      this.#permissions.authorizeConditional(
        [{ permission: healthcheckCheckReadPermission }],
        { credentials },
      ),
    ]);
    return checks.filter((_check, index) => {
      const resource = resources[index];
      return (
        namesOnlyReadableSystems(resource, readable) &&
        this.#allows(decision, resource)
      );
    });
  }

  /**
   * Throws NotFoundError unless the caller may see the check, then
   * NotAllowedError unless the policy allows `permission` on it.
   */
  async authorize(
    check: HealthCheckResource,
    credentials: BackstageCredentials,
    permission?: CheckPermission,
  ): Promise<void> {
    const asked = [
      healthcheckCheckReadPermission,
      ...(permission ? [permission] : []),
    ];
    const [readable, decisions] = await Promise.all([
      this.readableSystems(check.systems, credentials),
      this.#permissions.authorizeConditional(
        asked.map(p => ({ permission: p })),
        { credentials },
      ),
    ]);
    if (
      !namesOnlyReadableSystems(check, readable) ||
      !this.#allows(decisions[0], check)
    ) {
      throw new NotFoundError(`There is no check with id '${check.id}'`);
    }
    if (permission && !this.#allows(decisions[1], check)) {
      throw new NotAllowedError(
        `You may not do this: it needs the permission ${permission.name} on check '${check.id}'`,
      );
    }
  }

  /**
   * The problems of a spec's `systems` for the caller: every entry that
   * names no system they can read (see {@link unreadableSystemProblems}).
   */
  async unreadableSystems(
    written: readonly string[],
    credentials: BackstageCredentials,
  ): Promise<HealthCheckSpecProblem[]> {
    const resolved = systemRefsOf(written, 'default');
    const readable = await this.readableSystems(resolved, credentials);
    return unreadableSystemProblems(written, resolved, readable);
  }
}
