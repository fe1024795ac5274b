import { mockCredentials, TestDatabases } from '@backstage/backend-test-utils';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  PortalBackend,
  startPortalBackend,
} from '../__testUtils__/startPortalBackend';
import {
  LoopbackServer,
  startHttpServer,
  startTcpServer,
} from '../probes/__testUtils__/loopbackServers';

// A real catalog ingests the file and the probes run on their schedule.
jest.setTimeout(120_000);

const PAYMENTS_TOKEN = 'pay-s3cret-token';
const alice = mockCredentials.user.header('user:default/alice');

/** Loopback servers: the victim's endpoint, hostile peers, an attacker's listener. */
async function startTargets() {
  const attackerHits: string[] = [];
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
    if (/^\/(production|staging)\/payments\/health$/.test(req.url ?? '')) {
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
  const text = readFileSync(join(__dirname, 'hostile-catalog.yaml'), 'utf8')
    .replace(/\$HTTP_PORT/g, String(ports.http))
    .replace(/\$TCP_PORT/g, String(ports.tcp))
    .replace(/\$ATTACKER_PORT/g, String(ports.attacker))
    .replace(
      '$FIFTY_ONE_SYSTEMS',
      Array.from({ length: 51 }, (_, i) => `system-${i}`).join(', '),
    )
    .replace('$NESTED_CONDITION', `'${nested}'`);
  const file = join(dir, 'catalog.yaml');
  writeFileSync(file, text);
  return file;
}

async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${what}: ${JSON.stringify(value)}`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, 250));
    value = await read();
  }
  return value;
}

describe('a catalog written by an attacker', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  describe.each(databases.eachSupportedId())('on %p', databaseId => {
    let dir: string;
    let targets: Awaited<ReturnType<typeof startTargets>>;
    let portal: PortalBackend;
    let loopDelay: ReturnType<typeof monitorEventLoopDelay>;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'vigil-hostile-'));
      targets = await startTargets();
      portal = await startPortalBackend({
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
            reconcile: { catalogPollInterval: '1s' },
          },
        },
      });
    });

    afterAll(async () => {
      await portal?.stop();
      await targets?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const payments = () =>
      request(portal.server)
        .get('/api/healthcheck/v1/systems/default/payments')
        .set('Authorization', alice)
        .then(res => res.body);
    const attackerTools = () =>
      request(portal.server)
        .get('/api/healthcheck/v1/systems/attackers/attacker-tools')
        .set('Authorization', alice)
        .then(res => res.body);
    const cellOf = (details: any, checkId: string, environment = 'default') =>
      details.checks?.find((c: any) => c.checkId === checkId)?.cells?.[
        environment
      ];

    it('refuses each malformed check at its entity and field, as a catalog processing error', async () => {
      const errors = await waitFor(
        'the processing errors of the attacks',
        async () => Object.fromEntries(await portal.processingErrors()),
        found => Object.keys(found).length >= 8,
      );
      const errorOf = (name: string, namespace = 'attackers') =>
        (errors[`healthcheck:${namespace}/${name}`] ?? []).join('\n');
      expect(errorOf('attack-steal-secret')).toContain(
        "spec.config.headers.X-Loot: secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'attackers'",
      );
      expect(errorOf('attack-exfiltrate', 'default')).toContain(
        `spec.config.body: secret 'PAYMENTS_TOKEN' may not be sent to http://127.0.0.1:${targets.attacker.port}: its allowedOrigins do not include that origin`,
      );
      expect(errorOf('attack-any-host')).toContain('spec.target: ');
      expect(errorOf('attack-any-host')).toContain(
        'healthcheck.targets.allowPlaceholderHosts',
      );
      expect(errorOf('attack-huge-body')).toContain(
        'spec.config.maxBodyBytes: must be <= 16777216',
      );
      expect(errorOf('attack-unknown-type')).toContain(
        'spec.type: unknown probe type "gopher"',
      );
      expect(errorOf('attack-backreference')).toContain(
        "spec.config.expect: Pattern /(a+)\\1$/ is not a valid regular expression in RE2's linear-time syntax",
      );
      expect(errorOf('attack-unbounded')).toContain(
        'spec.timeout: 10m is longer than the longest timeout, 1m',
      );
      expect(errorOf('attack-unbounded')).toContain(
        'spec.systems: lists 51 items; at most 50 are allowed',
      );
      expect(errorOf('attack-nested-condition')).toContain(
        'brackets and parentheses nest more than 16 deep here',
      );
      // The refused checks never reach the catalog, so never a slice; the
      // rest of the file does.
      const names = await waitFor(
        'the catalog to hold the valid entities',
        async () => (await portal.listEntities()).map(e => e.metadata.name),
        found => found.includes('payments-health'),
      );
      expect(names).not.toContain('attack-huge-body');
    });

    it("keeps the payments team's own check working, secret and all, in its own environments only", async () => {
      const details = await waitFor(
        'payments to be healthy',
        payments,
        body => body.status === 'healthy' && body.healthy === 2,
      );
      expect(details.environmentNames).toEqual(['production', 'staging']);
      // Only its own check: another team's cannot attach itself to page it.
      expect(details.checks.map((c: any) => c.checkId)).toEqual([
        'healthcheck:default/payments-health',
      ]);
    });

    it("never sent the payments team's secret to the attacker's listener", () => {
      expect(targets.attackerHits).toEqual([]);
    });

    it('contains the checks it cannot refuse: a backtracking pattern, an endless body, a metadata address', async () => {
      const details = await waitFor(
        'every contained attack to have run',
        attackerTools,
        body =>
          ['attack-redos', 'attack-endless-body', 'attack-metadata'].every(
            check => cellOf(body, `healthcheck:attackers/${check}`)?.lastRunAt,
          ),
      );
      const reason = (check: string) =>
        cellOf(details, `healthcheck:attackers/${check}`).lastReason;
      expect(reason('attack-redos')).toContain(
        'sent 65536 bytes without /^(\\w+\\s?)*!$/',
      );
      expect(reason('attack-metadata')).toContain(
        'is a cloud metadata address',
      );
      expect(reason('attack-endless-body')).toContain('[BODY].status');
    });

    it('answers a condition nested a hundred deep through the API with a 400, not a 500', async () => {
      const nested = `${'len('.repeat(100)}[BODY]${')'.repeat(100)} == 1`;
      const res = await request(portal.server)
        .post('/api/healthcheck/v1/checks')
        .set('Authorization', alice)
        .send({
          id: 'nested',
          spec: {
            type: 'http',
            target: `http://127.0.0.1:${targets.http.port}/ok`,
            conditions: [nested],
            systems: ['attackers/attacker-tools'],
          },
        });
      expect(res.status).toBe(400);
      expect(res.body.error.problems).toEqual([
        {
          path: 'spec.conditions[0]',
          reason: expect.stringContaining('nest more than 16 deep'),
        },
      ]);
    });

    it('keeps the event loop free while every attack runs: delay p99 under 50 ms', async () => {
      // Over a whole interval of the attack checks, once the portal has
      // started: a start-up compiles and migrates, which is not an attack.
      loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      await new Promise(resolve => setTimeout(resolve, 6_000));
      loopDelay.disable();
      const p99Ms = loopDelay.percentile(99) / 1e6;
      // eslint-disable-next-line no-console
      console.log(
        `event loop delay on ${databaseId} (the 10 ms sampling interval included): p50 ${(
          loopDelay.percentile(50) / 1e6
        ).toFixed(1)} ms, p99 ${p99Ms.toFixed(1)} ms, max ${(
          loopDelay.max / 1e6
        ).toFixed(1)} ms`,
      );
      expect(p99Ms).toBeLessThan(50);
    });
  });
});
