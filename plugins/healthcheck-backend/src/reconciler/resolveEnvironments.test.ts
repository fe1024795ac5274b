import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { readDemoCatalog } from './__testUtils__/demoCatalog';
import {
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

  it('gives checkout production and staging from its annotation, and canary from its canary member', () => {
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
        environment: 'prodution',
        message:
          'Environment "prodution" (from system:default/shop) is not an Environment entity in the catalog; its slices run anyway',
      },
      {
        entityRef: 'component:default/shop-web',
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
