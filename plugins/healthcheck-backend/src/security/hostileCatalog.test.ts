import { TestDatabases } from '@backstage/backend-test-utils';
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { SLO_ALERTS_TASK_ID } from '../slo';
import {
  alice,
  ATTACKER_REASON,
  ATTACKER_TITLE,
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

    it("refuses another team's maintenance window and objective over payments at the field, as catalog processing errors", async () => {
      const window = 'maintenancewindow:attackers/attack-mute-payments';
      const objective = 'servicelevelobjective:attackers/attack-page-payments';
      const errors = await waitFor(
        'the processing errors of the foreign window and objective',
        async () => Object.fromEntries(await hostile.portal.processingErrors()),
        found => Boolean(found[window] && found[objective]),
      );
      expect(errors[window].join('\n')).toContain(
        "Invalid MaintenanceWindow 'attack-mute-payments': spec.systems[0]: maintenancewindow:attackers/attack-mute-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner)",
      );
      expect(errors[objective].join('\n')).toContain(
        "Invalid ServiceLevelObjective 'attack-page-payments': spec.system: servicelevelobjective:attackers/attack-page-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner)",
      );
    });

    it("keeps payments' Health tab and objectives its own: no foreign window or reason, no time left out", async () => {
      const details = await hostile.system('default', 'payments');
      expect(details.maintenance).toBeUndefined();
      expect(JSON.stringify(details)).not.toContain(ATTACKER_REASON);
      const windows = await request(hostile.portal.server)
        .get('/api/healthcheck/v1/maintenance-windows?system=payments')
        .set('Authorization', alice);
      expect(windows.body).toEqual({ items: [] });
      // The owner's objective counts the time payments is up: none of it
      // is taken for maintenance.
      const slos = await waitFor(
        "payments' objective to count up-time",
        () =>
          request(hostile.portal.server)
            .get('/api/healthcheck/v1/systems/default/payments/slos')
            .set('Authorization', alice)
            .then(res => res.body),
        body => body.items?.[0]?.status.good > 0,
      );
      expect(slos.items.map((item: any) => item.ref)).toEqual([
        'servicelevelobjective:default/payments-available',
      ]);
      expect(JSON.stringify(slos)).not.toContain(ATTACKER_TITLE);
    });

    it("tells payments' owner of an outage at once, and never pages them with another team's objective", async () => {
      const tasks = await hostile.portal.databaseOf('healthcheck');
      const lastAlertRun = async () =>
        (
          await tasks('backstage_backend_tasks__tasks')
            .where({ id: SLO_ALERTS_TASK_ID })
            .first()
        )?.last_run_ended_at ?? null;
      hostile.targets.failing.add('staging');
      try {
        const told = await waitFor(
          'the owner to be told payments in staging is unhealthy',
          async () =>
            hostile.notifications.filter(
              n => n.payload.title === 'payments in staging is unhealthy',
            ),
          found => found.length > 0,
        );
        // Not held for a window: sent to the owner as it happened.
        expect(told[0].recipients).toEqual({
          type: 'entity',
          entityRef: 'system:default/payments',
        });
        // The SLO alerts run every minute: wait for one that saw the
        // outage, which the attackers' 99.9999% objective would page.
        const before = await lastAlertRun();
        await waitFor(
          'the SLO alerts to run once more',
          lastAlertRun,
          ended => ended !== null && String(ended) !== String(before),
          90_000,
        );
        expect(
          hostile.notifications.map(n => n.payload.title).join('\n'),
        ).not.toContain(ATTACKER_TITLE);
      } finally {
        hostile.targets.failing.delete('staging');
      }
    }, 180_000);

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
