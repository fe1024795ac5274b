import { mockCredentials } from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  healthcheckCheckRunPermission,
  healthcheckCheckUpdatePermission,
} from '@vigil/plugin-healthcheck-common';
import {
  CheckAccess,
  namesOnlyReadableSystems,
  unreadableSystemProblems,
} from './CheckAccess';
import type { HealthCheckResource } from './checkResource';
import {
  createHealthcheckCheckConditionalDecision,
  healthcheckCheckConditions,
} from './conditionExports';

const PAYMENTS = 'system:default/payments';
const SECRET = 'system:default/secret';

const paymentsCheck: HealthCheckResource = {
  id: 'payments-http',
  source: 'api',
  owner: 'group:default/payments-team',
  systems: [PAYMENTS],
};
const sharedCheck: HealthCheckResource = {
  id: 'shared-dns',
  source: 'api',
  owner: 'group:default/platform',
  systems: [PAYMENTS, SECRET],
};

describe('namesOnlyReadableSystems', () => {
  it('lets a caller see a check only if they can read every system it names', () => {
    const readable = new Set([PAYMENTS]);
    expect(namesOnlyReadableSystems(paymentsCheck, readable)).toBe(true);
    expect(namesOnlyReadableSystems(sharedCheck, readable)).toBe(false);
  });

  it('hides a check with an entry that names no System from everyone', () => {
    expect(
      namesOnlyReadableSystems(
        { systems: [PAYMENTS, undefined] },
        new Set([PAYMENTS]),
      ),
    ).toBe(false);
  });
});

describe('unreadableSystemProblems', () => {
  it('names each entry the caller cannot read at its path, in the same words for a hidden and a missing system', () => {
    expect(
      unreadableSystemProblems(
        ['payments', 'secret', 'nowhere'],
        [PAYMENTS, SECRET, 'system:default/nowhere'],
        new Set([PAYMENTS]),
      ),
    ).toEqual([
      {
        path: ['spec', 'systems', 1],
        reason: 'there is no system "secret" that you can read',
      },
      {
        path: ['spec', 'systems', 2],
        reason: 'there is no system "nowhere" that you can read',
      },
    ]);
  });
});

describe('CheckAccess', () => {
  const alice = mockCredentials.user('user:default/alice');

  /** A catalog in which alice reads payments alone, and a given policy. */
  function accessWith(
    decide: (
      permissionName: string,
    ) =>
      | { result: AuthorizeResult.ALLOW | AuthorizeResult.DENY }
      | ReturnType<typeof createHealthcheckCheckConditionalDecision>,
  ) {
    const catalogReads: string[][] = [];
    const access = new CheckAccess({
      catalog: {
        getEntitiesByRefs: async ({ entityRefs }) => {
          catalogReads.push(entityRefs);
          return {
            items: entityRefs.map(ref =>
              ref === PAYMENTS
                ? {
                    apiVersion: 'backstage.io/v1alpha1',
                    kind: 'System',
                    metadata: { name: 'payments', namespace: 'default' },
                  }
                : undefined,
            ),
          };
        },
      },
      permissions: {
        authorizeConditional: async requests =>
          requests.map(({ permission }) => decide(permission.name)) as any,
      },
    });
    return { access, catalogReads };
  }

  it('lists the checks the caller may see, with one catalog request for all their systems', async () => {
    const { access, catalogReads } = accessWith(() => ({
      result: AuthorizeResult.ALLOW,
    }));
    const visible = await access.visible(
      [sharedCheck, paymentsCheck],
      check => check,
      alice,
    );
    expect(visible).toEqual([paymentsCheck]);
    expect(catalogReads).toEqual([[PAYMENTS, SECRET]]);
  });

  it("filters lists by the read permission's conditions too", async () => {
    const { access } = accessWith(() =>
      createHealthcheckCheckConditionalDecision(
        {
          name: 'healthcheck.check.read',
          resourceType: 'healthcheck-check',
        } as any,
        healthcheckCheckConditions.isCheckOwner({
          claims: ['group:default/search-team'],
        }),
      ),
    );
    expect(await access.visible([paymentsCheck], c => c, alice)).toEqual([]);
  });

  it('answers a check the caller may not see as one that does not exist', async () => {
    const { access } = accessWith(() => ({ result: AuthorizeResult.ALLOW }));
    await expect(access.authorize(sharedCheck, alice)).rejects.toMatchObject({
      name: 'NotFoundError',
      message: "There is no check with id 'shared-dns'",
    });
    await expect(
      access.authorize(paymentsCheck, alice),
    ).resolves.toBeUndefined();
  });

  it('refuses with 403 what the policy denies on a check the caller sees', async () => {
    const { access } = accessWith(name => ({
      result:
        name === healthcheckCheckRunPermission.name
          ? AuthorizeResult.DENY
          : AuthorizeResult.ALLOW,
    }));
    await expect(
      access.authorize(paymentsCheck, alice, healthcheckCheckRunPermission),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message:
        "You may not do this: it needs the permission healthcheck.check.run on check 'payments-http'",
    });
    await expect(
      access.authorize(paymentsCheck, alice, healthcheckCheckUpdatePermission),
    ).resolves.toBeUndefined();
  });

  it('says which systems of a spec the caller cannot read', async () => {
    const { access } = accessWith(() => ({ result: AuthorizeResult.ALLOW }));
    expect(
      await access.unreadableSystems(['payments', 'secret'], alice),
    ).toEqual([
      {
        path: ['spec', 'systems', 1],
        reason: 'there is no system "secret" that you can read',
      },
    ]);
  });
});
