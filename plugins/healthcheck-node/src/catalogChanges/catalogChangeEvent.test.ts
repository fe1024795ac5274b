import {
  MAX_SYSTEMS_PER_CHANGE,
  readCatalogChangeEvent,
} from './catalogChangeEvent';

describe('readCatalogChangeEvent', () => {
  it('reads a change, with system refs lower-cased', () => {
    expect(
      readCatalogChangeEvent({
        entityRef: 'component:default/api',
        systems: ['system:default/Payments', 'system:team-a/search'],
      }),
    ).toEqual({
      event: {
        entityRef: 'component:default/api',
        systems: ['system:default/payments', 'system:team-a/search'],
      },
    });
    expect(
      readCatalogChangeEvent({
        entityRef: 'environment:default/prod',
        systems: [],
        allSystems: true,
      }),
    ).toEqual({
      event: {
        entityRef: 'environment:default/prod',
        systems: [],
        allSystems: true,
      },
    });
  });

  it.each([
    [null, 'the payload is not an object'],
    ['component:default/api', 'the payload is not an object'],
    [{ systems: [] }, 'entityRef is not an entity ref'],
    [{ entityRef: 'api', systems: [] }, 'entityRef is not an entity ref'],
    [
      { entityRef: 'component:default/api', systems: 'system:default/a' },
      'systems is not a list',
    ],
    [
      { entityRef: 'component:default/api', systems: ['payments'] },
      'systems is not a list',
    ],
    [
      {
        entityRef: 'component:default/api',
        systems: Array.from(
          { length: MAX_SYSTEMS_PER_CHANGE + 1 },
          (_, i) => `system:default/s${i}`,
        ),
      },
      'systems is not a list',
    ],
    [
      {
        entityRef: 'component:default/api',
        systems: [],
        allSystems: 'yes',
      },
      'allSystems is not a boolean',
    ],
  ])('refuses %j: %s', (payload, problem) => {
    const read = readCatalogChangeEvent(payload);
    expect('problem' in read && read.problem).toContain(problem);
  });
});
