import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { createConditionAuthorizer } from '@backstage/plugin-permission-node';
import { healthcheckCheckReadPermission } from '@vigil/plugin-healthcheck-common';
import {
  createHealthcheckCheckConditionalDecision,
  healthcheckCheckConditions,
} from './conditionExports';
import type { HealthCheckResource } from './checkResource';
import {
  hasCheckSource,
  healthcheckCheckPermissionRules,
  isCheckOwner,
} from './rules';

const apiCheck: HealthCheckResource = {
  id: 'payments-http',
  source: 'api',
  owner: 'group:default/payments-team',
  systems: ['system:default/payments'],
};
const gitOpsCheck: HealthCheckResource = {
  id: 'healthcheck:default/search-api',
  source: 'gitops',
  systems: ['system:default/search'],
};

describe('isCheckOwner', () => {
  it("matches a check whose owner is among the claims, whatever the claims' case", () => {
    expect(
      isCheckOwner.apply(apiCheck, {
        claims: ['user:default/alice', 'Group:Default/Payments-Team'],
      }),
    ).toBe(true);
    expect(
      isCheckOwner.apply(apiCheck, { claims: ['group:default/search-team'] }),
    ).toBe(false);
  });

  it('matches no check without an owner', () => {
    expect(
      isCheckOwner.apply(gitOpsCheck, {
        claims: ['group:default/search-team'],
      }),
    ).toBe(false);
  });
});

describe('hasCheckSource', () => {
  it('tells checks from Git and from the API apart', () => {
    expect(hasCheckSource.apply(apiCheck, { source: 'api' })).toBe(true);
    expect(hasCheckSource.apply(gitOpsCheck, { source: 'api' })).toBe(false);
    expect(hasCheckSource.apply(gitOpsCheck, { source: 'gitops' })).toBe(true);
  });
});

describe('the conditions policy authors write', () => {
  const allows = createConditionAuthorizer(
    Object.values(healthcheckCheckPermissionRules),
  );

  it('decide per check: API checks of the caller, say', () => {
    const decision = createHealthcheckCheckConditionalDecision(
      healthcheckCheckReadPermission,
      {
        allOf: [
          healthcheckCheckConditions.hasCheckSource({ source: 'api' }),
          healthcheckCheckConditions.isCheckOwner({
            claims: ['group:default/payments-team'],
          }),
        ],
      },
    );
    expect(decision).toEqual({
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'healthcheck',
      resourceType: 'healthcheck-check',
      conditions: {
        allOf: [
          {
            rule: 'HAS_CHECK_SOURCE',
            resourceType: 'healthcheck-check',
            params: { source: 'api' },
          },
          {
            rule: 'IS_CHECK_OWNER',
            resourceType: 'healthcheck-check',
            params: { claims: ['group:default/payments-team'] },
          },
        ],
      },
    });
    expect(allows(decision, apiCheck)).toBe(true);
    expect(allows(decision, gitOpsCheck)).toBe(false);
  });
});
