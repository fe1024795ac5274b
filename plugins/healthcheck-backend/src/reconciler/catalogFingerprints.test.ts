import { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import {
  catalogFingerprints,
  compareFingerprints,
  ENVIRONMENTS_KEY,
} from './catalogFingerprints';

function entity(
  kind: string,
  name: string,
  etag: string,
  spec?: JsonObject,
): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind,
    metadata: { name, namespace: 'default', etag },
    spec,
  };
}

const snapshot = () => ({
  systems: [entity('System', 'payments', 's1'), entity('System', 'shop', 's2')],
  members: [
    entity('Component', 'payments-api', 'm1', { system: 'payments' }),
    entity('Resource', 'payments-db', 'm2', { system: 'default/payments' }),
    entity('Component', 'loose', 'm3'),
  ],
  healthChecks: [
    entity('HealthCheck', 'both', 'c1', {
      systems: ['payments', 'system:default/shop', 'ghost'],
    }),
  ],
  environments: [entity('Environment', 'production', 'e1')],
});

describe('catalogFingerprints', () => {
  it('gives one fingerprint per system, per system only named by a check, and one for the environments', () => {
    expect([...catalogFingerprints(snapshot()).keys()].sort()).toEqual([
      ENVIRONMENTS_KEY,
      'system:default/ghost',
      'system:default/payments',
      'system:default/shop',
    ]);
  });

  it('changes only the fingerprint of the system whose member changed', () => {
    const before = catalogFingerprints(snapshot());
    const edited = snapshot();
    edited.members[1].metadata.etag = 'm2-edited';
    expect(compareFingerprints(before, catalogFingerprints(edited))).toEqual({
      environmentsChanged: false,
      changedSystems: ['system:default/payments'],
    });
  });

  it('changes every system a check names when the check changes or is deleted', () => {
    const before = catalogFingerprints(snapshot());
    const deleted = snapshot();
    deleted.healthChecks = [];
    expect(compareFingerprints(before, catalogFingerprints(deleted))).toEqual({
      environmentsChanged: false,
      changedSystems: [
        'system:default/ghost',
        'system:default/payments',
        'system:default/shop',
      ],
    });
  });

  it('tells a change of the Environment entities apart', () => {
    const before = catalogFingerprints(snapshot());
    const edited = snapshot();
    edited.environments.push(entity('Environment', 'staging', 'e2'));
    expect(compareFingerprints(before, catalogFingerprints(edited))).toEqual({
      environmentsChanged: true,
      changedSystems: [],
    });
  });

  it('does not depend on the order in which the catalog lists entities', () => {
    const reversed = snapshot();
    reversed.systems.reverse();
    reversed.members.reverse();
    expect(catalogFingerprints(reversed)).toEqual(
      catalogFingerprints(snapshot()),
    );
  });

  it('hashes the entity itself where the catalog gives no etag', () => {
    const without = snapshot();
    delete without.systems[0].metadata.etag;
    const edited = structuredClone(without);
    edited.systems[0].metadata.annotations = {
      'vigil.dev/environments': 'production',
    };
    expect(
      compareFingerprints(
        catalogFingerprints(without),
        catalogFingerprints(edited),
      ).changedSystems,
    ).toEqual(['system:default/payments']);
  });
});
