import { Entity } from '@backstage/catalog-model';
import { JsonObject } from '@backstage/types';
import { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import { MaintenanceWindowEntityProcessor } from './MaintenanceWindowEntityProcessor';

const location = { type: 'file', target: '/demo/maintenance.yaml' };
const processor = new MaintenanceWindowEntityProcessor();

function maintenanceWindow(spec: JsonObject): Entity {
  return {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'MaintenanceWindow',
    metadata: { name: 'nightly-backup', namespace: 'team-a' },
    spec,
  };
}

const weekly = {
  systems: ['payments'],
  checks: ['healthcheck:default/payments-db'],
  timezone: 'Europe/Berlin',
  rrule: 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0',
  duration: '1h',
};

async function rejection(spec: JsonObject): Promise<string | undefined> {
  try {
    await processor.validateEntityKind(maintenanceWindow(spec));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('MaintenanceWindowEntityProcessor', () => {
  it('accepts a recurring and a one-off window, and leaves other kinds alone', async () => {
    expect(await rejection(weekly)).toBeUndefined();
    expect(
      await rejection({
        systems: ['payments'],
        start: '2026-12-05T02:00',
        end: '2026-12-05T03:00',
      }),
    ).toBeUndefined();
    await expect(
      processor.validateEntityKind({
        ...maintenanceWindow(weekly),
        kind: 'HealthCheck',
      }),
    ).resolves.toBe(false);
  });

  it('rejects a rule its own parser cannot read, at its field', async () => {
    expect(await rejection({ ...weekly, rrule: 'FREQ=WEEKLY;BYHOUR=24' })).toBe(
      "Invalid MaintenanceWindow 'nightly-backup': spec.rrule: BYHOUR=24 is out of range (0 to 23)",
    );
    expect(await rejection({ ...weekly, rrule: 'FREQ=FORTNIGHTLY' })).toBe(
      'Invalid MaintenanceWindow \'nightly-backup\': spec.rrule: "FREQ=FORTNIGHTLY" has no known FREQ; use YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY or MINUTELY',
    );
    expect(
      await rejection({
        ...weekly,
        rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
      }),
    ).toBe(
      'Invalid MaintenanceWindow \'nightly-backup\': spec.rrule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30" never occurs (not once in five years)',
    );
    expect(
      await rejection({
        ...weekly,
        rrule: undefined,
        cron: '0 25 * * *',
      } as JsonObject),
    ).toMatch(
      /^Invalid MaintenanceWindow 'nightly-backup': spec\.cron: "0 25 \* \* \*" is not a cron expression: /,
    );
  });

  it('lists every problem on its own line', async () => {
    expect(
      await rejection({
        systems: ['payments'],
        timezone: 'Berlin',
        rrule: 'FREQ=DAILY',
      }),
    ).toBe(
      [
        "Invalid MaintenanceWindow 'nightly-backup', 2 problems:",
        '- spec.timezone: "Berlin" is not an IANA time zone, such as Europe/Berlin or America/New_York',
        '- spec.duration: is required for a recurring window: how long each occurrence lasts, such as 1h',
      ].join('\n'),
    );
  });

  it('relates the window to its owner and to the systems and checks it covers, in its namespace', async () => {
    const emitted: CatalogProcessorResult[] = [];
    await processor.postProcessEntity(
      maintenanceWindow({ ...weekly, owner: 'team' }),
      location,
      r => emitted.push(r),
    );
    const relations = emitted.map(r =>
      r.type === 'relation'
        ? `${r.relation.source.kind}:${r.relation.source.namespace}/${r.relation.source.name} ${r.relation.type} ${r.relation.target.kind}:${r.relation.target.namespace}/${r.relation.target.name}`
        : r.type,
    );
    expect(relations).toEqual([
      'MaintenanceWindow:team-a/nightly-backup ownedBy Group:team-a/team',
      'Group:team-a/team ownerOf MaintenanceWindow:team-a/nightly-backup',
      'MaintenanceWindow:team-a/nightly-backup covers System:team-a/payments',
      'System:team-a/payments coveredBy MaintenanceWindow:team-a/nightly-backup',
      'MaintenanceWindow:team-a/nightly-backup covers healthcheck:default/payments-db',
      'healthcheck:default/payments-db coveredBy MaintenanceWindow:team-a/nightly-backup',
    ]);
  });

  describe('judged against what its owner owns (healthcheck.checks.fromCatalog)', () => {
    /** The catalog as the processor reads it: payments is another team's. */
    const catalogOwners = new Map([
      ['system:team-a/payments', { owner: 'group:default/payments-team' }],
      ['system:team-a/tools', { owner: 'group:team-a/team' }],
      ['healthcheck:default/payments-db', { owner: 'group:team-a/team' }],
    ]);
    const logger = { warn: jest.fn() };
    const judging = (
      rule: 'owner' | 'any',
      readOwners = async () => catalogOwners,
    ) =>
      new MaintenanceWindowEntityProcessor({
        ownership: { rule, readOwners, logger },
      });
    const muting = maintenanceWindow({
      ...weekly,
      systems: ['payments', 'tools'],
      owner: 'team',
    });

    it('refuses a system another team owns, at its field, as a processing error', async () => {
      await expect(judging('owner').validateEntityKind(muting)).rejects.toThrow(
        "Invalid MaintenanceWindow 'nightly-backup': spec.systems[0]: maintenancewindow:team-a/nightly-backup is owned by group:team-a/team and system:team-a/payments by group:default/payments-team; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of system:team-a/payments declare it",
      );
    });

    it('accepts what its owner owns, and what it cannot judge: a target not in the catalog (yet), or owners it could not read', async () => {
      const own = maintenanceWindow({
        ...weekly,
        systems: ['tools'],
        owner: 'team',
      });
      await expect(judging('owner').validateEntityKind(own)).resolves.toBe(
        true,
      );
      await expect(
        judging('owner', async () => new Map()).validateEntityKind(muting),
      ).resolves.toBe(true);
      await expect(
        judging('owner', async () => {
          throw new Error('catalog unavailable');
        }).validateEntityKind(muting),
      ).resolves.toBe(true);
      expect(logger.warn).toHaveBeenCalledWith(
        'Could not read the owners of what maintenancewindow:team-a/nightly-backup names, so it is not judged here this time; the health-check backend judges it where it reads it: Error: catalog unavailable',
      );
    });

    it('accepts every system where the operator set any', async () => {
      await expect(judging('any').validateEntityKind(muting)).resolves.toBe(
        true,
      );
    });
  });
});
