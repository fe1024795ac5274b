import { ConfigReader } from '@backstage/config';
import { badgeAuthPolicy, readBadgeSettings } from './badgeSettings';

describe('readBadgeSettings', () => {
  it('keeps badges private by default', () => {
    const closed = { public: false, publicSystems: new Set() };
    expect(readBadgeSettings(new ConfigReader({}))).toEqual(closed);
    expect(
      readBadgeSettings(new ConfigReader({ healthcheck: { badges: {} } })),
    ).toEqual(closed);
  });

  it('reads healthcheck.badges.public', () => {
    expect(
      readBadgeSettings(
        new ConfigReader({ healthcheck: { badges: { public: true } } }),
      ),
    ).toMatchObject({ public: true });
    expect(
      readBadgeSettings(
        new ConfigReader({ healthcheck: { badges: { public: false } } }),
      ),
    ).toMatchObject({ public: false });
  });

  it('reads the systems listed as public, as canonical System refs', () => {
    const settings = readBadgeSettings(
      new ConfigReader({
        healthcheck: {
          badges: {
            public: true,
            publicSystems: ['system:default/Payments', 'search', 'ops/pager'],
          },
        },
      }),
    );
    expect([...settings.publicSystems]).toEqual([
      'system:default/payments',
      'system:default/search',
      'system:ops/pager',
    ]);
  });

  it('refuses a public system that is not the ref of a System, naming each entry', () => {
    expect(() =>
      readBadgeSettings(
        new ConfigReader({
          healthcheck: {
            badges: {
              publicSystems: ['payments', 'component:default/cart', 'a:b:c'],
            },
          },
        }),
      ),
    ).toThrow(
      'Invalid badge settings: healthcheck.badges.publicSystems[1]: "component:default/cart" is not the ref of a System, such as system:default/payments or payments; healthcheck.badges.publicSystems[2]: "a:b:c" is not the ref of a System, such as system:default/payments or payments',
    );
  });

  it('refuses a value that is not a boolean', () => {
    expect(() =>
      readBadgeSettings(
        new ConfigReader({ healthcheck: { badges: { public: 'maybe' } } }),
      ),
    ).toThrow(/healthcheck\.badges\.public/);
  });
});

describe('badgeAuthPolicy', () => {
  it('opens the badge routes alone, to anyone when public, else to the user cookie', () => {
    expect(badgeAuthPolicy({ public: true })).toEqual({
      path: '/v1/badges',
      allow: 'unauthenticated',
    });
    expect(badgeAuthPolicy({ public: false })).toEqual({
      path: '/v1/badges',
      allow: 'user-cookie',
    });
  });
});
