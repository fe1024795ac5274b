import { ConfigReader } from '@backstage/config';
import { badgeAuthPolicy, readBadgeSettings } from './badgeSettings';

describe('readBadgeSettings', () => {
  it('keeps badges private by default', () => {
    expect(readBadgeSettings(new ConfigReader({}))).toEqual({ public: false });
    expect(
      readBadgeSettings(new ConfigReader({ healthcheck: { badges: {} } })),
    ).toEqual({ public: false });
  });

  it('reads healthcheck.badges.public', () => {
    expect(
      readBadgeSettings(
        new ConfigReader({ healthcheck: { badges: { public: true } } }),
      ),
    ).toEqual({ public: true });
    expect(
      readBadgeSettings(
        new ConfigReader({ healthcheck: { badges: { public: false } } }),
      ),
    ).toEqual({ public: false });
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
