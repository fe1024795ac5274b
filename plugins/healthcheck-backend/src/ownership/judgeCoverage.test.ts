import type { CoveringEntity } from '@vigil/plugin-healthcheck-node';
import { DEFAULT_COVERAGE_SETTINGS } from './coverageSettings';
import { judgeCoverage } from './judgeCoverage';

const PAYMENTS = 'system:default/payments';
const TOOLS = 'system:attackers/attacker-tools';
const PAYMENTS_TEAM = 'group:default/payments-team';
const ATTACKERS = 'group:attackers/attackers';

const owners = new Map([
  [PAYMENTS, { owner: PAYMENTS_TEAM }],
  [TOOLS, { owner: ATTACKERS }],
  ['healthcheck:default/payments-health', { owner: PAYMENTS_TEAM }],
]);

/** A window named `name` of `owner` over `systems`. */
function window(
  name: string,
  owner: string | undefined,
  systems: string[],
  checks: string[] = [],
): CoveringEntity {
  return {
    kind: 'MaintenanceWindow',
    ref: `maintenancewindow:default/${name}`,
    ...(owner ? { owner } : {}),
    targets: [
      ...systems.map((ref, i) => ({ path: ['spec', 'systems', i], ref })),
      ...checks.map((ref, i) => ({ path: ['spec', 'checks', i], ref })),
    ],
  };
}

function objective(
  name: string,
  owner: string,
  system: string,
  check?: string,
): CoveringEntity {
  return {
    kind: 'ServiceLevelObjective',
    ref: `servicelevelobjective:default/${name}`,
    owner,
    targets: [
      { path: ['spec', 'system'], ref: system },
      ...(check ? [{ path: ['spec', 'check'], ref: check }] : []),
    ],
  };
}

const windows = { rule: 'owner' as const, cap: { perTarget: 2, key: 'k' } };

describe('judgeCoverage', () => {
  it("keeps what the owner owns and refuses another team's system at its field, the rest of the entity untouched", () => {
    const verdicts = judgeCoverage(
      [window('mute', ATTACKERS, [PAYMENTS, TOOLS])],
      owners,
      windows,
    );
    expect(verdicts.get('maintenancewindow:default/mute')).toEqual({
      admitted: new Set([TOOLS]),
      refused: [
        `spec.systems[0]: maintenancewindow:default/mute is owned by ${ATTACKERS} and ${PAYMENTS} by ${PAYMENTS_TEAM}; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner ${PAYMENTS_TEAM}, or let the owner of ${PAYMENTS} declare it`,
      ],
    });
  });

  it('refuses a target the catalog does not hold, and every target of an entity without an owner', () => {
    const verdicts = judgeCoverage(
      [
        window('ghost', PAYMENTS_TEAM, ['system:default/ghost']),
        window('nobody', undefined, [PAYMENTS]),
      ],
      owners,
      windows,
    );
    expect(verdicts.get('maintenancewindow:default/ghost')).toEqual({
      admitted: new Set(),
      refused: [
        'spec.systems[0]: system:default/ghost is not in the catalog, so no one owns it; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner)',
      ],
    });
    expect(verdicts.get('maintenancewindow:default/nobody')?.refused).toEqual([
      expect.stringContaining('is owned by no one and system:default/payments'),
    ]);
  });

  it('admits at most the cap per system, the first in entity ref order, and refuses the rest for that system alone', () => {
    const verdicts = judgeCoverage(
      [
        window('c', PAYMENTS_TEAM, [PAYMENTS]),
        window('a', PAYMENTS_TEAM, [PAYMENTS]),
        window('b', PAYMENTS_TEAM, [
          PAYMENTS,
          'healthcheck:default/payments-health',
        ]),
      ],
      owners,
      windows,
    );
    expect(verdicts.get('maintenancewindow:default/a')?.admitted).toEqual(
      new Set([PAYMENTS]),
    );
    expect(verdicts.get('maintenancewindow:default/b')?.admitted).toEqual(
      new Set([PAYMENTS, 'healthcheck:default/payments-health']),
    );
    expect(verdicts.get('maintenancewindow:default/c')).toEqual({
      admitted: new Set(),
      refused: [
        "spec.systems[0]: system:default/payments is already reached by 2 MaintenanceWindow entities, the most one may be (k); its owner's own come first, then entity ref order, and this one is left out for it",
      ],
    });
  });

  it("never counts a refused entity against a system's cap, so another team cannot crowd out the owner's", () => {
    const verdicts = judgeCoverage(
      [
        window('a1', ATTACKERS, [PAYMENTS]),
        window('a2', ATTACKERS, [PAYMENTS]),
        window('z', PAYMENTS_TEAM, [PAYMENTS]),
      ],
      owners,
      windows,
    );
    expect(verdicts.get('maintenancewindow:default/z')?.admitted).toEqual(
      new Set([PAYMENTS]),
    );
  });

  it("under any, lets every team reach every system, but ranks the system owner's own first for the cap", () => {
    const verdicts = judgeCoverage(
      [
        window('a1', ATTACKERS, [PAYMENTS]),
        window('a2', ATTACKERS, [PAYMENTS]),
        window('z', PAYMENTS_TEAM, [PAYMENTS]),
      ],
      owners,
      { ...windows, rule: 'any' },
    );
    expect(
      ['a1', 'a2', 'z'].map(name => [
        name,
        verdicts.get(`maintenancewindow:default/${name}`)!.admitted.size,
      ]),
    ).toEqual([
      ['a1', 1],
      ['a2', 0],
      ['z', 1],
    ]);
  });

  it("caps objectives per system, not per check, and judges an objective's check by its owner too", () => {
    const { rule, objectiveCap } = DEFAULT_COVERAGE_SETTINGS;
    const many = Array.from({ length: 21 }, (_, i) =>
      objective(
        `o${String(i).padStart(2, '0')}`,
        PAYMENTS_TEAM,
        PAYMENTS,
        'healthcheck:default/payments-health',
      ),
    );
    const verdicts = judgeCoverage(
      [
        ...many,
        objective(
          'page',
          ATTACKERS,
          TOOLS,
          'healthcheck:default/payments-health',
        ),
      ],
      owners,
      { rule, cap: objectiveCap },
    );
    expect(verdicts.get('servicelevelobjective:default/o19')?.refused).toEqual(
      [],
    );
    expect(verdicts.get('servicelevelobjective:default/o20')).toEqual({
      admitted: new Set(['healthcheck:default/payments-health']),
      refused: [
        "spec.system: system:default/payments is already reached by 20 ServiceLevelObjective entities, the most one may be (healthcheck.slo.maxObjectivesPerSystem); its owner's own come first, then entity ref order, and this one is left out for it",
      ],
    });
    expect(verdicts.get('servicelevelobjective:default/page')?.refused).toEqual(
      [
        expect.stringMatching(
          /^spec\.check: servicelevelobjective:default\/page is owned by group:attackers\/attackers and healthcheck:default\/payments-health by group:default\/payments-team;/,
        ),
      ],
    );
  });
});
