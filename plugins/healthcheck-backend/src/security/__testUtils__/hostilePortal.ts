import type {
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { createServiceFactory } from '@backstage/backend-plugin-api';
import { mockCredentials } from '@backstage/backend-test-utils';
import {
  NotificationSendOptions,
  notificationService,
} from '@backstage/plugin-notifications-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import {
  PortalBackend,
  startPortalBackend,
} from '../../__testUtils__/startPortalBackend';
import {
  LoopbackServer,
  startHttpServer,
  startTcpServer,
} from '../../probes/__testUtils__/loopbackServers';

/** The payments team's secret, which only its own endpoint may receive. */
export const PAYMENTS_TOKEN = 'pay-s3cret-token';
/** What the attackers' maintenance window would show on the victim's Health tab. */
export const ATTACKER_REASON = 'Planned maintenance, do not page';
/** The title of the attackers' objective, which its alerts would carry. */
export const ATTACKER_TITLE = 'URGENT payments down, call +1 555 0100';

/** A signed-in user of the payments team. */
export const alice = mockCredentials.user.header('user:default/alice');

/** Loopback servers: the victim's endpoint, hostile peers, an attacker's listener. */
async function startTargets() {
  const attackerHits: string[] = [];
  /** Environments whose payments endpoint answers 503, as in an outage. */
  const failing = new Set<string>();
  const http = await startHttpServer((req, res) => {
    if (req.url === '/endless') {
      // A body that never ends, written as fast as it is read.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const write = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
      return;
    }
    const victim = /^\/(production|staging)\/payments\/health$/.exec(
      req.url ?? '',
    );
    if (victim && failing.has(victim[1])) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'DOWN' }));
      return;
    }
    if (victim) {
      const authorized =
        req.headers.authorization === `Bearer ${PAYMENTS_TOKEN}`;
      res.writeHead(authorized ? 200 : 401, {
        'content-type': 'application/json',
      });
      res.end(JSON.stringify({ status: authorized ? 'UP' : 'NO-TOKEN' }));
      return;
    }
    res.end('{}');
  });
  const tcp = await startTcpServer(socket => {
    // Trickles 64 KiB of word characters that never end in the "!" the
    // pattern waits for.
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= 64 * 1024) {
        clearInterval(timer);
        return;
      }
      socket.write('a'.repeat(512));
      sent += 512;
    }, 2);
    socket.on('close', () => clearInterval(timer));
    socket.on('error', () => {});
  });
  const attacker = await startHttpServer((req, res) => {
    attackerHits.push(
      `${req.method} ${req.url} ${JSON.stringify(req.headers)}`,
    );
    res.end('{}');
  });
  return {
    http,
    tcp,
    attacker,
    attackerHits,
    failing,
    close: () =>
      Promise.all([http, tcp, attacker].map((s: LoopbackServer) => s.close())),
  };
}

/** The fixture with the test's ports and generated values filled in. */
function writeCatalog(
  dir: string,
  ports: { http: number; tcp: number; attacker: number },
): string {
  const nested = `${'len('.repeat(100)}[BODY]${')'.repeat(100)} == 1`;
  const text = readFileSync(
    join(__dirname, '..', 'hostile-catalog.yaml'),
    'utf8',
  )
    .replace(/\$HTTP_PORT/g, String(ports.http))
    .replace(/\$TCP_PORT/g, String(ports.tcp))
    .replace(/\$ATTACKER_PORT/g, String(ports.attacker))
    .replace(
      '$FIFTY_ONE_SYSTEMS',
      Array.from({ length: 51 }, (_, i) => `system-${i}`).join(', '),
    )
    .replace('$NESTED_CONDITION', `'${nested}'`)
    .replace('$ATTACKER_REASON', `'${ATTACKER_REASON}'`)
    .replace('$ATTACKER_TITLE', `'${ATTACKER_TITLE}'`);
  const file = join(dir, 'catalog.yaml');
  writeFileSync(file, text);
  return file;
}

export { waitFor } from '../../__testUtils__/waitFor';

/**
 * What {@link startHostilePortal} starts: a portal that ingested
 * `hostile-catalog.yaml`, with the loopback servers its checks probe.
 */
export interface HostilePortal {
  portal: PortalBackend;
  targets: Awaited<ReturnType<typeof startTargets>>;
  /** What the plugin sent through Backstage's notifications, in order. */
  notifications: NotificationSendOptions[];
  /** `GET /v1/systems/{ref}` as a signed-in user, its body. */
  system(namespace: string, name: string): Promise<any>;
  stop(): Promise<void>;
}

/**
 * A real portal (catalog, permissions, scheduler, health checks) that
 * ingests the hostile catalog, with the payments team's secret bound to its
 * own endpoint and namespace.
 */
export async function startHostilePortal(
  databases: TestDatabases,
  databaseId: TestDatabaseId,
): Promise<HostilePortal> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-hostile-'));
  const targets = await startTargets();
  const notifications: NotificationSendOptions[] = [];
  const portal = await startPortalBackend({
    catalogFile: writeCatalog(dir, {
      http: targets.http.port,
      tcp: targets.tcp.port,
      attacker: targets.attacker.port,
    }),
    databases,
    databaseId,
    config: {
      healthcheck: {
        network: { allowLoopback: true },
        secrets: {
          PAYMENTS_TOKEN: {
            value: PAYMENTS_TOKEN,
            allowedOrigins: [`http://127.0.0.1:${targets.http.port}`],
            allowedNamespaces: ['default'],
          },
        },
        reconcile: { catalogPollInterval: '1s', catalogPollBudget: 1 },
      },
    },
    features: [
      createServiceFactory({
        service: notificationService,
        deps: {},
        factory: () => ({
          async send(notification: NotificationSendOptions) {
            notifications.push(notification);
          },
        }),
      }),
    ],
  });
  return {
    portal,
    targets,
    notifications,
    system: (namespace, name) =>
      request(portal.server)
        .get(`/api/healthcheck/v1/systems/${namespace}/${name}`)
        .set('Authorization', alice)
        .then(res => res.body),
    async stop() {
      await portal.stop();
      await targets.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The cell of a check in one environment of a system's matrix. */
export function cellOf(details: any, checkId: string, environment = 'default') {
  return details.checks?.find((c: any) => c.checkId === checkId)?.cells?.[
    environment
  ];
}

/** The checks that run but cannot be refused, and must be contained. */
export const CONTAINED_ATTACKS = [
  'attack-redos',
  'attack-endless-body',
  'attack-metadata',
];

/** A condition nested a hundred deep. */
export const NESTED_CONDITION = `${'len('.repeat(100)}[BODY]${')'.repeat(
  100,
)} == 1`;
