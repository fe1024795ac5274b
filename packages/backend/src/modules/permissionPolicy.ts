import {
  coreServices,
  createBackendModule,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import {
  AuthorizeResult,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  PermissionPolicy,
  PolicyQuery,
  PolicyQueryUser,
} from '@backstage/plugin-permission-node';
import { policyExtensionPoint } from '@backstage/plugin-permission-node/alpha';

/**
 * The demo portal's policy: everyone who is signed in may read; only members
 * of the configured editor groups (or the users named there) may create,
 * update or delete. Catalog entities are never deleted from the UI here, so a
 * stray click cannot unregister the demo catalog. Editors may manage the
 * maintenance of every system (`healthcheck.maintenance.manage` is decided
 * per System entity): a portal of teams would allow it to each system's
 * owners instead, with `createCatalogConditionalDecision(permission,
 * catalogConditions.isEntityOwner({ claims }))`.
 */
export class EditorsPermissionPolicy implements PermissionPolicy {
  readonly #editors: ReadonlySet<string>;
  readonly #userInfo: UserInfoService;

  static create(options: {
    config: Config;
    userInfo: UserInfoService;
  }): EditorsPermissionPolicy {
    const editors =
      options.config.getOptionalStringArray('vigilDemo.permission.editors') ??
      [];
    return new EditorsPermissionPolicy(editors, options.userInfo);
  }

  constructor(editors: string[], userInfo: UserInfoService) {
    this.#editors = new Set(editors.map(ref => ref.toLocaleLowerCase('en-US')));
    this.#userInfo = userInfo;
  }

  async handle(
    request: PolicyQuery,
    user?: PolicyQueryUser,
  ): Promise<PolicyDecision> {
    const { permission } = request;
    if (permission.name === 'catalog.entity.delete') {
      return { result: AuthorizeResult.DENY };
    }
    const action = permission.attributes.action;
    if (action === undefined || action === 'read') {
      return { result: AuthorizeResult.ALLOW };
    }
    return (await this.#isEditor(user))
      ? { result: AuthorizeResult.ALLOW }
      : { result: AuthorizeResult.DENY };
  }

  async #isEditor(user?: PolicyQueryUser): Promise<boolean> {
    if (!user) {
      return false;
    }
    const { ownershipEntityRefs } = await this.#userInfo.getUserInfo(
      user.credentials,
    );
    return ownershipEntityRefs.some(ref =>
      this.#editors.has(ref.toLocaleLowerCase('en-US')),
    );
  }
}

/** Installs {@link EditorsPermissionPolicy} as the permission backend's policy. */
export const permissionPolicyModule = createBackendModule({
  pluginId: 'permission',
  moduleId: 'vigil-demo-policy',
  register(reg) {
    reg.registerInit({
      deps: {
        config: coreServices.rootConfig,
        userInfo: coreServices.userInfo,
        policy: policyExtensionPoint,
      },
      async init({ config, userInfo, policy }) {
        policy.setPolicy(EditorsPermissionPolicy.create({ config, userInfo }));
      },
    });
  },
});
