import { ConfigReader } from '@backstage/config';
import {
  formatSpecProblems,
  HealthCheckSpecProblem,
} from '@vigil/plugin-healthcheck-common';
import {
  coverageOwnershipProblems,
  coveringEntityOf,
  readCatalogOwnershipRule,
  readTargetOwners,
  TargetOwnerCatalog,
} from './catalogOwnership';

const muteWindow = {
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'MaintenanceWindow',
  metadata: { name: 'Mute-Payments', namespace: 'attackers' },
  spec: {
    systems: ['system:default/payments', 'attacker-tools'],
    checks: ['default/payments-health'],
    cron: '0 * * * *',
    duration: '168h',
    owner: 'attackers',
  },
};

const pageObjective = {
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'ServiceLevelObjective',
  metadata: { name: 'page-payments', namespace: 'attackers' },
  spec: {
    system: 'system:default/payments',
    environment: 'production',
    owner: 'group:attackers/attackers',
  },
};

const owners = new Map([
  ['system:default/payments', { owner: 'group:default/payments-team' }],
  ['system:attackers/attacker-tools', { owner: 'group:attackers/attackers' }],
  [
    'healthcheck:default/payments-health',
    { owner: 'group:default/payments-team' },
  ],
]);

const lines = (problems: HealthCheckSpecProblem[]) =>
  formatSpecProblems(problems);

describe('readCatalogOwnershipRule', () => {
  it('is owner unless the operator widens it to any, and names the key of a value it does not know', () => {
    expect(readCatalogOwnershipRule(new ConfigReader({}))).toBe('owner');
    expect(
      readCatalogOwnershipRule(
        new ConfigReader({ healthcheck: { checks: { fromCatalog: 'any' } } }),
      ),
    ).toBe('any');
    expect(() =>
      readCatalogOwnershipRule(
        new ConfigReader({ healthcheck: { checks: { fromCatalog: 'all' } } }),
      ),
    ).toThrow("Invalid healthcheck.checks.fromCatalog 'all': use owner or any");
  });
});

describe('coveringEntityOf', () => {
  it('reads what a MaintenanceWindow covers, each at its field, in canonical form', () => {
    expect(coveringEntityOf(muteWindow)).toEqual({
      kind: 'MaintenanceWindow',
      ref: 'maintenancewindow:attackers/mute-payments',
      owner: 'group:attackers/attackers',
      targets: [
        { path: ['spec', 'systems', 0], ref: 'system:default/payments' },
        {
          path: ['spec', 'systems', 1],
          ref: 'system:attackers/attacker-tools',
        },
        {
          path: ['spec', 'checks', 0],
          ref: 'healthcheck:default/payments-health',
        },
      ],
    });
  });

  it("reads a ServiceLevelObjective's system and check, and has no owner where it names none", () => {
    expect(
      coveringEntityOf({
        ...pageObjective,
        spec: { system: 'payments', check: 'payments-health' },
      }),
    ).toEqual({
      kind: 'ServiceLevelObjective',
      ref: 'servicelevelobjective:attackers/page-payments',
      targets: [
        { path: ['spec', 'system'], ref: 'system:attackers/payments' },
        {
          path: ['spec', 'check'],
          ref: 'healthcheck:attackers/payments-health',
        },
      ],
    });
  });

  it('is nothing for other kinds', () => {
    expect(
      coveringEntityOf({ ...muteWindow, kind: 'HealthCheck' }),
    ).toBeUndefined();
    expect(
      coveringEntityOf({ ...muteWindow, apiVersion: 'example.com/v1' }),
    ).toBeUndefined();
  });
});

describe('coverageOwnershipProblems', () => {
  it("refuses, at its field, each target another team owns, and lets the owner's own pass", () => {
    expect(
      lines(
        coverageOwnershipProblems(
          coveringEntityOf(muteWindow)!,
          owners,
          'owner',
        ),
      ),
    ).toEqual([
      'spec.systems[0]: maintenancewindow:attackers/mute-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of system:default/payments declare it',
      'spec.checks[0]: maintenancewindow:attackers/mute-payments is owned by group:attackers/attackers and healthcheck:default/payments-health by group:default/payments-team; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of healthcheck:default/payments-health declare it',
    ]);
    expect(
      lines(
        coverageOwnershipProblems(
          coveringEntityOf(pageObjective)!,
          owners,
          'owner',
        ),
      ),
    ).toEqual([
      'spec.system: servicelevelobjective:attackers/page-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of system:default/payments declare it',
    ]);
  });

  it('refuses every target of an entity without an owner, and a target without one', () => {
    const ownerless = coveringEntityOf({
      ...pageObjective,
      spec: { system: 'system:attackers/attacker-tools' },
    })!;
    expect(
      lines(coverageOwnershipProblems(ownerless, owners, 'owner')),
    ).toEqual([
      expect.stringContaining(
        'spec.system: servicelevelobjective:attackers/page-payments is owned by no one and system:attackers/attacker-tools by group:attackers/attackers;',
      ),
    ]);
    const orphans = new Map([['system:default/payments', {}]]);
    expect(
      lines(
        coverageOwnershipProblems(
          coveringEntityOf(pageObjective)!,
          orphans,
          'owner',
        ),
      ),
    ).toEqual([
      expect.stringContaining(
        'and system:default/payments by no one; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner (the target has no owner to give)',
      ),
    ]);
  });

  it('refuses a target the catalog does not hold, unless told to let what it cannot judge pass', () => {
    const entity = coveringEntityOf(pageObjective)!;
    expect(
      lines(coverageOwnershipProblems(entity, new Map(), 'owner')),
    ).toEqual([
      'spec.system: system:default/payments is not in the catalog, so no one owns it; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner)',
    ]);
    expect(
      coverageOwnershipProblems(entity, new Map(), 'owner', {
        unknownTargets: 'allow',
      }),
    ).toEqual([]);
  });

  it('lets every target pass when the operator set any', () => {
    expect(
      coverageOwnershipProblems(coveringEntityOf(muteWindow)!, owners, 'any'),
    ).toEqual([]);
  });
});

describe('readTargetOwners', () => {
  it('reads the owners of the refs the catalog holds, in canonical form, a few hundred refs a request', async () => {
    const requests: string[][] = [];
    const held = new Map([
      [
        'system:default/payments',
        {
          kind: 'System',
          metadata: { name: 'payments', namespace: 'default' },
          spec: { owner: 'Payments-Team' },
        },
      ],
      [
        'system:default/orphan',
        {
          kind: 'System',
          metadata: { name: 'orphan', namespace: 'default' },
          spec: {},
        },
      ],
    ]);
    const catalog: TargetOwnerCatalog = {
      async getEntitiesByRefs({ entityRefs }) {
        requests.push(entityRefs);
        return { items: entityRefs.map(ref => held.get(ref)) };
      },
    };
    const many = Array.from({ length: 600 }, (_, i) => `system:default/s${i}`);
    const found = await readTargetOwners(
      catalog,
      ['system:default/payments', 'system:default/orphan', ...many],
      {} as any,
    );
    expect(Object.fromEntries(found)).toEqual({
      'system:default/payments': { owner: 'group:default/payments-team' },
      'system:default/orphan': {},
    });
    expect(requests.map(r => r.length)).toEqual([500, 102]);
  });
});
