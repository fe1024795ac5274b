import { mockCredentials } from '@backstage/backend-test-utils';
import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import type express from 'express';
import {
  BADGE_DECISION_TTL_MS,
  createBadgeAuthorizer,
  readerKeyOf,
} from './badgeVisibility';

const PAYMENTS = 'system:default/payments';
const SECRET = 'system:default/secret';
const STATUS_PAGE = 'system:default/status-page';
const alice = mockCredentials.user('user:default/alice');
const bob = mockCredentials.user('user:default/bob');
const anonymous = mockCredentials.none();

/** A request whose credentials the fake httpAuth hands out as they are. */
function requestAs(credentials: BackstageCredentials): express.Request {
  return { credentials } as unknown as express.Request;
}

/**
 * The policy of the tests: alice reads payments; anonymous callers read
 * status-page; nobody reads secret.
 */
function setup(
  settings: { public: boolean; publicSystems?: string[] },
  options: { failing?: () => boolean } = {},
) {
  let clock = 1_000_000;
  const asked: Array<{ who: string; systemRef: string }> = [];
  const readable: Record<string, string[]> = {
    'user:user:default/alice': [PAYMENTS],
    anonymous: [STATUS_PAGE],
  };
  const authorize = createBadgeAuthorizer({
    httpAuth: {
      credentials: async (req: express.Request) => (req as any).credentials,
    } as any,
    auth: { getNoneCredentials: async () => anonymous },
    permissions: {
      authorize: async (requests, { credentials }: any) => {
        if (options.failing?.()) {
          throw new Error('permission backend unreachable');
        }
        return requests.map(({ resourceRef }: any) => {
          const who = readerKeyOf(credentials);
          asked.push({ who, systemRef: resourceRef });
          return {
            result: readable[who]?.includes(resourceRef)
              ? AuthorizeResult.ALLOW
              : AuthorizeResult.DENY,
          };
        });
      },
    },
    settings: {
      public: settings.public,
      publicSystems: new Set(settings.publicSystems ?? []),
    },
    now: () => clock,
  });
  return {
    show: (credentials: BackstageCredentials, systemRef: string) =>
      authorize(requestAs(credentials), { systemRef }),
    asked,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('createBadgeAuthorizer', () => {
  it('shows a user the badge of a system the catalog lets them read', async () => {
    const { show } = setup({ public: false });
    await expect(show(alice, PAYMENTS)).resolves.toBeUndefined();
  });

  it('answers any other system as one health checks do not know: 404, not 403', async () => {
    const { show } = setup({ public: false });
    await expect(show(bob, PAYMENTS)).rejects.toMatchObject({
      name: 'NotFoundError',
      message: `No system ${PAYMENTS} with health checks`,
    });
    await expect(show(alice, SECRET)).rejects.toMatchObject({
      name: 'NotFoundError',
      message: `No system ${SECRET} with health checks`,
    });
  });

  it('shows anonymous readers of public badges what an anonymous principal may read, and the listed systems', async () => {
    const { show, asked } = setup({ public: true, publicSystems: [PAYMENTS] });
    await expect(show(anonymous, STATUS_PAGE)).resolves.toBeUndefined();
    await expect(show(anonymous, PAYMENTS)).resolves.toBeUndefined();
    await expect(show(anonymous, SECRET)).rejects.toMatchObject({
      name: 'NotFoundError',
    });
    expect(asked).toEqual([
      { who: 'anonymous', systemRef: STATUS_PAGE },
      { who: 'anonymous', systemRef: SECRET },
    ]);
  });

  it('shows a signed-in user what they could load signed out, and no more', async () => {
    const { show } = setup({ public: true, publicSystems: [PAYMENTS] });
    await expect(show(bob, STATUS_PAGE)).resolves.toBeUndefined();
    await expect(show(bob, PAYMENTS)).resolves.toBeUndefined();
    await expect(show(bob, SECRET)).rejects.toMatchObject({
      name: 'NotFoundError',
    });
  });

  it('makes nothing public while badges are private, not even the listed systems', async () => {
    const { show } = setup({ public: false, publicSystems: [PAYMENTS] });
    await expect(show(bob, PAYMENTS)).rejects.toMatchObject({
      name: 'NotFoundError',
    });
    await expect(show(bob, STATUS_PAGE)).rejects.toMatchObject({
      name: 'NotFoundError',
    });
  });

  it('asks once per caller and system within 10 s, and again after', async () => {
    const { show, asked, advance } = setup({ public: false });
    await Promise.all([show(alice, PAYMENTS), show(alice, PAYMENTS)]);
    advance(BADGE_DECISION_TTL_MS);
    await show(alice, PAYMENTS);
    expect(asked).toHaveLength(1);

    advance(1);
    await show(alice, PAYMENTS);
    expect(asked).toHaveLength(2);
  });

  it("never answers one caller with another's decision", async () => {
    const { show, asked } = setup({ public: false });
    await show(alice, PAYMENTS);
    await expect(show(bob, PAYMENTS)).rejects.toMatchObject({
      name: 'NotFoundError',
    });
    expect(asked.map(a => a.who)).toEqual([
      'user:user:default/alice',
      'user:user:default/bob',
    ]);
  });

  it('does not remember a decision that failed', async () => {
    let failing = true;
    const { show } = setup({ public: false }, { failing: () => failing });
    await expect(show(alice, PAYMENTS)).rejects.toThrow(
      'permission backend unreachable',
    );
    failing = false;
    await expect(show(alice, PAYMENTS)).resolves.toBeUndefined();
  });
});

describe('readerKeyOf', () => {
  it('keys users by their ref, services by their subject, and all anonymous readers as one', () => {
    expect(readerKeyOf(alice)).toBe('user:user:default/alice');
    expect(readerKeyOf(mockCredentials.service('plugin:catalog'))).toBe(
      'service:plugin:catalog',
    );
    expect(readerKeyOf(anonymous)).toBe('anonymous');
  });
});
