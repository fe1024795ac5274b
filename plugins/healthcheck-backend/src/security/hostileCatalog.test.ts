import { TestDatabases } from '@backstage/backend-test-utils';
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  alice,
  cellOf,
  CONTAINED_ATTACKS,
  HostilePortal,
  NESTED_CONDITION,
  startHostilePortal,
  waitFor,
} from './__testUtils__/hostilePortal';

// A real catalog ingests the file and the probes run on their schedule.
jest.setTimeout(120_000);

describe('a catalog written by an attacker', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  describe.each(databases.eachSupportedId())('on %p', databaseId => {
    let hostile: HostilePortal;

    beforeAll(async () => {
      hostile = await startHostilePortal(databases, databaseId);
    });

    afterAll(async () => {
      await hostile?.stop();
    });

    it('refuses each malformed check at its entity and field, as a catalog processing error', async () => {
      const errors = await waitFor(
        'the processing errors of the attacks',
        async () => Object.fromEntries(await hostile.portal.processingErrors()),
        found => Object.keys(found).length >= 8,
      );
      const errorOf = (name: string, namespace = 'attackers') =>
        (errors[`healthcheck:${namespace}/${name}`] ?? []).join('\n');
      expect(errorOf('attack-steal-secret')).toContain(
        "spec.config.headers.X-Loot: secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'attackers'",
      );
      expect(errorOf('attack-exfiltrate', 'default')).toContain(
        `spec.config.body: secret 'PAYMENTS_TOKEN' may not be sent to http://127.0.0.1:${hostile.targets.attacker.port}: its allowedOrigins do not include that origin`,
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
        async () =>
          (await hostile.portal.listEntities()).map(e => e.metadata.name),
        found => found.includes('payments-health'),
      );
      expect(names).not.toContain('attack-huge-body');
    });

    it("keeps the payments team's own check working, secret and all, in its own environments only", async () => {
      const details = await waitFor(
        'payments to be healthy',
        () => hostile.system('default', 'payments'),
        body => body.status === 'healthy' && body.healthy === 2,
      );
      expect(details.environmentNames).toEqual(['production', 'staging']);
      // Only its own check: another team's cannot attach itself to page it.
      expect(details.checks.map((c: any) => c.checkId)).toEqual([
        'healthcheck:default/payments-health',
      ]);
    });

    it("never sent the payments team's secret to the attacker's listener", () => {
      expect(hostile.targets.attackerHits).toEqual([]);
    });

    it('contains the checks it cannot refuse: a backtracking pattern, an endless body, a metadata address', async () => {
      const details = await waitFor(
        'every contained attack to have run',
        () => hostile.system('attackers', 'attacker-tools'),
        body =>
          CONTAINED_ATTACKS.every(
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
      const res = await request(hostile.portal.server)
        .post('/api/healthcheck/v1/checks')
        .set('Authorization', alice)
        .send({
          id: 'nested',
          spec: {
            type: 'http',
            target: `http://127.0.0.1:${hostile.targets.http.port}/ok`,
            conditions: [NESTED_CONDITION],
            systems: ['attackers/attacker-tools'],
          },
        });
      expect(res.status).toBe(400);
      expect(res.body.error.problems).toEqual([
        {
          path: ['spec', 'conditions', 0],
          reason: expect.stringContaining('nest more than 16 deep'),
        },
      ]);
    });
  });
});
