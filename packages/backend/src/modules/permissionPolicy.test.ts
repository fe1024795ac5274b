import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  createPermission,
} from '@backstage/plugin-permission-common';
import { healthcheckMaintenanceManagePermission } from '@vigil/plugin-healthcheck-common';
import { EditorsPermissionPolicy } from './permissionPolicy';

const readCheck = createPermission({
  name: 'healthcheck.check.read',
  attributes: { action: 'read' },
});
const createCheck = createPermission({
  name: 'healthcheck.check.create',
  attributes: { action: 'create' },
});
const deleteEntity = createPermission({
  name: 'catalog.entity.delete',
  attributes: { action: 'delete' },
});

function policyWithEditors(editors: string[]) {
  return EditorsPermissionPolicy.create({
    config: mockServices.rootConfig({
      data: { vigilDemo: { permission: { editors } } },
    }),
    userInfo: mockServices.userInfo(),
  });
}

function asUser(userEntityRef: string) {
  const credentials = mockCredentials.user(userEntityRef);
  return {
    credentials,
    info: { userEntityRef, ownershipEntityRefs: [userEntityRef] },
  };
}

describe('EditorsPermissionPolicy', () => {
  const policy = policyWithEditors(['user:default/alice']);

  it('lets any signed-in user read', async () => {
    const decision = await policy.handle(
      { permission: readCheck },
      asUser('user:default/bob'),
    );
    expect(decision.result).toBe(AuthorizeResult.ALLOW);
  });

  it('lets editors change things', async () => {
    const decision = await policy.handle(
      { permission: createCheck },
      asUser('user:default/alice'),
    );
    expect(decision.result).toBe(AuthorizeResult.ALLOW);
  });

  it('refuses changes to everyone else', async () => {
    const decision = await policy.handle(
      { permission: createCheck },
      asUser('user:default/bob'),
    );
    expect(decision.result).toBe(AuthorizeResult.DENY);
  });

  it('refuses changes when there is no user at all', async () => {
    const decision = await policy.handle({ permission: createCheck });
    expect(decision.result).toBe(AuthorizeResult.DENY);
  });

  it('lets editors manage the maintenance of any system, decided per system, and no one else', async () => {
    const manage = {
      permission: healthcheckMaintenanceManagePermission,
      resourceRef: 'system:default/messaging',
    };
    // The demo guest opens windows over systems it does not own.
    expect(
      (await policy.handle(manage, asUser('user:default/alice'))).result,
    ).toBe(AuthorizeResult.ALLOW);
    expect(
      (await policy.handle(manage, asUser('user:default/bob'))).result,
    ).toBe(AuthorizeResult.DENY);
  });

  it('never lets anyone delete catalog entities, editors included', async () => {
    const decision = await policy.handle(
      { permission: deleteEntity },
      asUser('user:default/alice'),
    );
    expect(decision.result).toBe(AuthorizeResult.DENY);
  });
});
