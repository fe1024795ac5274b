import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { readDemoCatalog } from './__testUtils__/demoCatalog';
import {
  environmentVocabularyOf,
  groupMembersBySystem,
  resolveEnvironments,
} from './resolveEnvironments';

function system(name: string, environments?: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      annotations:
        environments === undefined
          ? undefined
          : { 'vigil.dev/environments': environments },
    },
    spec: { owner: 'team' },
  };
}

function member(
  name: string,
  systemRef: string,
  environment?: string,
  kind = 'Component',
): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind,
    metadata: {
      name,
      annotations:
        environment === undefined
          ? undefined
          : { 'vigil.dev/environment': environment },
    },
    spec: { type: 'service', owner: 'team', system: systemRef },
  };
}

/** A member of `shop` owned by `owner` (no owner when undefined). */
function ownedMember(
  name: string,
  owner: string | undefined,
  environment: string,
  namespace?: string,
): Entity {
  const entity = member(name, 'system:default/shop', environment);
  return {
    ...entity,
    metadata: { ...entity.metadata, namespace },
    spec: { type: 'service', system: 'system:default/shop', owner },
  };
}

describe('resolveEnvironments on the demo catalog', () => {
  const entities = readDemoCatalog();
  const membersBySystem = groupMembersBySystem(entities);
  const environmentsOf = (name: string) => {
    const found = entities.find(
      e => e.kind === 'System' && e.metadata.name === name,
    )!;
    return resolveEnvironments({
      system: found,
      members: membersBySystem.get(stringifyEntityRef(found)) ?? [],
    });
  };

  it('reads the six systems of the demo', () => {
    expect(
      entities.filter(e => e.kind === 'System').map(e => e.metadata.name),
    ).toEqual([
      'analytics',
      'checkout',
      'identity',
      'messaging',
      'payments',
      'storefront',
    ]);
  });

  it('gives checkout production and staging from its annotation, and canary from its canary member, which its owner owns', () => {
    expect(environmentsOf('checkout')).toEqual({
      environments: ['production', 'staging', 'canary'],
      problems: [],
    });
  });

  it('gives analytics, which declares nothing, the one environment "default"', () => {
    expect(environmentsOf('analytics')).toEqual({
      environments: ['default'],
      problems: [],
    });
  });

  it.each(['identity', 'messaging', 'payments', 'storefront'])(
    'gives %s production and staging',
    name => {
      expect(environmentsOf(name)).toEqual({
        environments: ['production', 'staging'],
        problems: [],
      });
    },
  );
});

describe('resolveEnvironments', () => {
  it('trims the system list and skips empty entries', () => {
    expect(
      resolveEnvironments({
        system: system('shop', ' production ,, staging ,'),
        members: [],
      }).environments,
    ).toEqual(['production', 'staging']);
  });

  it('adds the environment of a member that the system does not list, as designed', () => {
    const result = resolveEnvironments({
      system: system('shop', 'production'),
      members: [
        member('shop-web', 'shop', 'production'),
        member('shop-web-eu', 'system:default/shop', 'eu-west'),
        member('shop-db-dr', 'shop', 'disaster-recovery', 'Resource'),
      ],
    });
    expect(result).toEqual({
      environments: ['production', 'disaster-recovery', 'eu-west'],
      problems: [],
    });
  });

  it('lets members alone declare the environments of a system without the annotation', () => {
    expect(
      resolveEnvironments({
        system: system('shop'),
        members: [member('b', 'shop', 'staging'), member('a', 'shop', 'qa')],
      }).environments,
    ).toEqual(['qa', 'staging']);
  });

  it('merges names that differ only in case into one lower-case name, and says so', () => {
    const result = resolveEnvironments({
      system: system('shop', 'Production, staging'),
      members: [
        member('shop-web', 'shop', 'PRODUCTION'),
        member('shop-api', 'shop', 'production'),
      ],
    });
    expect(result.environments).toEqual(['production', 'staging']);
    expect(result.problems).toEqual([
      {
        entityRef: 'system:default/shop',
        systemRef: 'system:default/shop',
        environment: 'production',
        message:
          'Environment "production" is spelled "Production" on system:default/shop and "production" on component:default/shop-api and "PRODUCTION" on component:default/shop-web; names are compared without regard to case',
      },
    ]);
  });

  it('reports the same names whatever order the catalog returns members in', () => {
    const members = [
      member('a', 'shop', 'Canary'),
      member('b', 'shop', 'canary'),
      member('c', 'shop', 'blue'),
    ];
    const forward = resolveEnvironments({ system: system('shop'), members });
    const backward = resolveEnvironments({
      system: system('shop'),
      members: [...members].reverse(),
    });
    expect(forward.environments).toEqual(['blue', 'canary']);
    expect(backward).toEqual(forward);
  });

  it('keeps a name that is not an Environment entity, with a warning', () => {
    const result = resolveEnvironments({
      system: system('shop', 'production,prodution'),
      members: [member('shop-web', 'shop', 'qa')],
      environmentVocabulary: ['Production', 'staging'],
    });
    expect(result.environments).toEqual(['production', 'prodution', 'qa']);
    expect(result.problems).toEqual([
      {
        entityRef: 'system:default/shop',
        systemRef: 'system:default/shop',
        environment: 'prodution',
        message:
          'Environment "prodution" (from system:default/shop) is not an Environment entity in the catalog; its slices run anyway',
      },
      {
        entityRef: 'component:default/shop-web',
        systemRef: 'system:default/shop',
        environment: 'qa',
        message:
          'Environment "qa" (from component:default/shop-web) is not an Environment entity in the catalog; its slices run anyway',
      },
    ]);
  });

  it('checks nothing against an empty vocabulary, and never asks "default" to be an Environment entity', () => {
    expect(
      resolveEnvironments({
        system: system('shop', 'qa'),
        members: [],
        environmentVocabulary: [],
      }).problems,
    ).toEqual([]);
    expect(
      resolveEnvironments({
        system: system('shop'),
        members: [],
        environmentVocabulary: ['production'],
      }),
    ).toEqual({ environments: ['default'], problems: [] });
  });

  it('counts only Components and Resources that belong to the system', () => {
    const result = resolveEnvironments({
      system: system('shop', 'production'),
      members: [
        member('other-web', 'other-shop', 'staging'),
        member('shop-api', 'shop', 'sandbox', 'API'),
        member('shop-web', 'system:elsewhere/shop', 'eu'),
        { ...member('orphan', 'shop', 'qa'), spec: { type: 'service' } },
      ],
    });
    expect(result).toEqual({ environments: ['production'], problems: [] });
  });

  it('reports an empty member annotation and one that lists several environments', () => {
    const result = resolveEnvironments({
      system: system('shop'),
      members: [
        member('shop-web', 'shop', ' '),
        member('shop-api', 'shop', 'production, staging'),
      ],
    });
    expect(result.environments).toEqual(['production', 'staging']);
    expect(result.problems.map(p => p.message)).toEqual([
      'vigil.dev/environment on component:default/shop-api lists 2 environments (production, staging); it names one, so each counts. A system lists several in vigil.dev/environments',
      'vigil.dev/environment on component:default/shop-web is empty; it names no environment',
    ]);
  });

  it('gives a system without environments the one environment "default"', () => {
    expect(
      resolveEnvironments({
        system: system('shop', ' , '),
        members: [member('shop-web', 'shop')],
      }),
    ).toEqual({ environments: ['default'], problems: [] });
  });
});

describe('resolveEnvironments: names that are no environment names', () => {
  it('leaves them out, naming the entity and the annotation that wrote them', () => {
    const result = resolveEnvironments({
      system: system('shop', 'production, evil.example/x?'),
      members: [member('shop-web', 'shop', 'x@evil.example#')],
    });
    expect(result.environments).toEqual(['production']);
    expect(result.problems).toEqual([
      {
        entityRef: 'system:default/shop',
        systemRef: 'system:default/shop',
        message:
          'vigil.dev/environments on system:default/shop: "evil.example/x?" is not an environment name: "." is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case. It is left out',
      },
      {
        entityRef: 'component:default/shop-web',
        systemRef: 'system:default/shop',
        message:
          'vigil.dev/environment on component:default/shop-web: "x@evil.example#" is not an environment name: "@" is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case. It is left out',
      },
    ]);
  });

  it('gives a system whose only names are refused the environment "default"', () => {
    expect(
      resolveEnvironments({ system: system('shop', 'a/b'), members: [] })
        .environments,
    ).toEqual(['default']);
  });
});

describe('resolveEnvironments: who may add an environment', () => {
  const owned = (owner: string) => ({
    ...system('shop', 'production'),
    spec: { owner },
  });

  it("takes a member's environment only when the system's owner owns the member", () => {
    const result = resolveEnvironments({
      system: owned('group:default/payments'),
      members: [
        ownedMember('checkout-canary', 'payments', 'canary'),
        ownedMember('intruder', 'group:default/storefront', 'prod'),
      ],
    });
    expect(result.environments).toEqual(['production', 'canary']);
    expect(result.problems).toEqual([
      {
        entityRef: 'component:default/intruder',
        systemRef: 'system:default/shop',
        environment: 'prod',
        message:
          'vigil.dev/environment on component:default/intruder would add environment "prod" to system:default/shop, but component:default/intruder is owned by group:default/storefront and system:default/shop is owned by group:default/payments; only the system and members owned by its owner may add environments (healthcheck.environments.fromMembers: owner). It is left out; declare it in vigil.dev/environments on system:default/shop, or own the member by the same team',
      },
    ]);
  });

  it("says nothing of another team's member that names an environment the system has", () => {
    expect(
      resolveEnvironments({
        system: owned('payments'),
        members: [
          ownedMember('canary', 'payments', 'canary'),
          ownedMember('shared-web', 'storefront', 'Production'),
          ownedMember('shared-canary', 'storefront', 'canary'),
        ],
      }),
    ).toEqual({ environments: ['production', 'canary'], problems: [] });
  });

  it("compares owners as canonical refs: kind group, and each entity's own namespace", () => {
    const teamSystem: Entity = {
      ...owned('payments'),
      metadata: {
        name: 'shop',
        namespace: 'team-a',
        annotations: { 'vigil.dev/environments': 'production' },
      },
    };
    const inTeamA = (name: string, owner: string, environment: string) => ({
      ...ownedMember(name, owner, environment, 'team-a'),
      spec: { type: 'service', system: 'shop', owner },
    });
    const result = resolveEnvironments({
      system: teamSystem,
      members: [
        inTeamA('a', 'Group:team-a/Payments', 'qa'),
        inTeamA('b', 'payments', 'sandbox'),
        {
          ...ownedMember('c', 'payments', 'perf', 'default'),
          spec: {
            type: 'service',
            system: 'system:team-a/shop',
            owner: 'payments',
          },
        },
      ],
    });
    expect(result.environments).toEqual(['production', 'qa', 'sandbox']);
    expect(result.problems.map(p => p.entityRef)).toEqual([
      'component:default/c',
    ]);
    expect(result.problems[0].message).toContain(
      'component:default/c is owned by group:default/payments and system:team-a/shop is owned by group:team-a/payments',
    );
  });

  it('takes environments from no member of a system without an owner, nor from a member without one', () => {
    const ownerless = { ...system('shop', 'production'), spec: {} };
    expect(
      resolveEnvironments({
        system: ownerless,
        members: [ownedMember('web', 'payments', 'canary')],
      }).problems.map(p => p.message),
    ).toEqual([
      expect.stringContaining(
        'component:default/web is owned by group:default/payments and system:default/shop is owned by no one',
      ),
    ]);
    expect(
      resolveEnvironments({
        system: owned('payments'),
        members: [ownedMember('web', undefined, 'canary')],
      }).environments,
    ).toEqual(['production']);
  });

  it("takes any member's environment with fromMembers: any, as before", () => {
    expect(
      resolveEnvironments({
        system: owned('payments'),
        members: [ownedMember('intruder', 'storefront', 'prod')],
        fromMembers: 'any',
      }),
    ).toEqual({ environments: ['production', 'prod'], problems: [] });
  });

  it('still refuses a name that is no environment name from another team', () => {
    expect(
      resolveEnvironments({
        system: owned('payments'),
        members: [ownedMember('intruder', 'storefront', 'evil.example/x?')],
      }).problems.map(p => p.message),
    ).toEqual([
      expect.stringMatching(
        /^vigil\.dev\/environment on component:default\/intruder: "evil\.example\/x\?" is not an environment name/,
      ),
    ]);
  });
});

describe('environmentVocabularyOf', () => {
  it('takes the names of Environment entities that can be environment names, and reports the others', () => {
    const environment = (name: string): Entity => ({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Environment',
      metadata: { name, namespace: 'default' },
    });
    expect(
      environmentVocabularyOf([
        environment('Production'),
        environment('eu_west'),
        environment('staging'),
      ]),
    ).toEqual({
      names: ['production', 'staging'],
      problems: [
        {
          entityRef: 'environment:default/eu_west',
          message:
            'Environment entity environment:default/eu_west: "eu_west" is not an environment name: "_" is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case. No system\'s environment can match it',
        },
      ],
    });
  });
});

describe('groupMembersBySystem', () => {
  it('groups Components and Resources under the canonical ref of their system', () => {
    const web = member('web', 'Shop');
    const db = member('db', 'system:default/shop', undefined, 'Resource');
    const api = member('api', 'shop', undefined, 'API');
    const elsewhere = {
      ...member('x', 'shop'),
      metadata: { name: 'x', namespace: 'team-a' },
    };
    const grouped = groupMembersBySystem([web, db, api, elsewhere]);
    expect([...grouped.entries()]).toEqual([
      ['system:default/shop', [web, db]],
      ['system:team-a/shop', [elsewhere]],
    ]);
  });
});
