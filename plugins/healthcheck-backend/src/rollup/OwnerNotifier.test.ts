import { TestDatabases } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import type { DesiredSlice } from '../model';
import {
  healthTestbed,
  sliceOf,
  withDependsOnRelations,
} from './__testUtils__/healthTestbed';
import type { NotificationSettings } from './buildNotification';

jest.setTimeout(120_000);

const DEPENDENTS = Array.from(
  { length: 20 },
  (_, i) => `dep-${String(i + 1).padStart(2, '0')}`,
);
const UPSTREAM = 'shared-db';
const UPSTREAM_REF = `system:default/${UPSTREAM}`;
const FLAPS = 2;

/** A shared database every one of 20 systems depends on, each its own team's. */
function stormCatalog(): Entity[] {
  const system = (name: string, owner: string, dependsOn: string[] = []) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name, namespace: 'default' },
    spec: { owner, dependsOn },
  });
  return withDependsOnRelations([
    system(UPSTREAM, 'group:default/db-team'),
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: { name: 'shared-db-primary', namespace: 'default' },
      spec: {
        type: 'database',
        owner: 'group:default/db-team',
        system: UPSTREAM,
      },
    },
    ...DEPENDENTS.map(name =>
      system(name, `group:default/${name}-team`, [UPSTREAM_REF]),
    ),
  ]);
}

const STORM_SLICES: DesiredSlice[] = [
  sliceOf('db-health', UPSTREAM, 'production'),
  // Each dependent's check reaches the database, so the database explains
  // its outage (healthcheck.notifications.upstreamAttribution: targets).
  ...DEPENDENTS.map(name =>
    sliceOf(`${name}-health`, name, 'production', [
      'component:default/shared-db-primary',
    ]),
  ),
];

interface OwnerView {
  /** Distinct notifications, as the owner's inbox holds them (one per scope). */
  notifications: number;
  /** Of those, how many name the upstream system. */
  namingUpstream: number;
  /** Whether the last word of every notification is a recovery. */
  toldRecovered: boolean;
}

/** What each system's owner sees: the notifications sent, one per scope. */
function ownerViews(sent: any[]): Map<string, OwnerView> {
  const byOwner = new Map<string, Map<string, any[]>>();
  for (const notification of sent) {
    const owner = notification.recipients.entityRef;
    const scopes = byOwner.get(owner) ?? new Map<string, any[]>();
    const versions = scopes.get(notification.payload.scope) ?? [];
    versions.push(notification.payload);
    scopes.set(notification.payload.scope, versions);
    byOwner.set(owner, scopes);
  }
  return new Map(
    [...byOwner].map(([owner, scopes]) => {
      const all = [...scopes.values()];
      return [
        owner,
        {
          notifications: scopes.size,
          namingUpstream: all.filter(versions =>
            versions.some(v => v.description.includes(UPSTREAM_REF)),
          ).length,
          toldRecovered: all.some(versions =>
            / recovered$/.test(versions.at(-1).title),
          ),
        },
      ];
    }),
  );
}

describe('a storm along dependencies', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);
  afterAll(() => testbed.close());

  /**
   * The database fails, its 20 dependents fail with it and flip twice
   * while it is down, then it recovers and they do.
   */
  async function storm(
    databaseId: Parameters<typeof testbed.setup>[0],
    groupUpstreamIncidents: boolean,
  ) {
    const { store } = await testbed.setup(databaseId, STORM_SLICES);
    const catalog = catalogServiceMock({ entities: stormCatalog() });
    const health = testbed.instance(store, catalog, 'storm', {
      notificationSettings: { groupUpstreamIncidents },
    });
    const [upstream, ...dependents] = STORM_SLICES;
    const set = async (
      slices: DesiredSlice[],
      status: 'healthy' | 'unhealthy',
    ) => {
      for (const slice of slices) {
        await testbed.setStatus(store, slice, status, 'connection refused');
      }
      await health.transitions.check(slices);
    };
    await set(STORM_SLICES, 'healthy');
    await set([upstream], 'unhealthy');
    await set(dependents, 'unhealthy');
    for (let flap = 0; flap < FLAPS; flap++) {
      await set(dependents, 'healthy');
      await set(dependents, 'unhealthy');
    }
    // What the Health tab and the overview show meanwhile.
    const during = await health.rollups.recompute(
      `system:default/${DEPENDENTS[0]}`,
    );
    await set([upstream], 'healthy');
    await set(dependents, 'healthy');
    const after = await health.rollups.recompute(
      `system:default/${DEPENDENTS[0]}`,
    );
    return {
      views: ownerViews(health.notifications.sent),
      wire: health.notifications.sent.length,
      causedBy: [during, after].map(r => r.environments[0].causedBy),
    };
  }

  it.each(databases.eachSupportedId())(
    'tells each dependent owner once per upstream incident, naming the upstream, and every owner of the recovery, on %p',
    async databaseId => {
      const grouped = await storm(databaseId, true);
      const perFlip = await storm(databaseId, false);

      const row = (name: string, run: typeof grouped) => {
        const dependents = DEPENDENTS.map(
          d => run.views.get(`system:default/${d}`)!,
        );
        const upstream = run.views.get(UPSTREAM_REF)!;
        return `| ${name} | ${Math.max(
          ...dependents.map(v => v.notifications),
        )} | ${Math.max(...dependents.map(v => v.namingUpstream))} | ${
          upstream.notifications
        } | ${
          dependents.filter(v => v.toldRecovered).length +
          (upstream.toldRecovered ? 1 : 0)
        } of 21 | ${run.wire} |`;
      };
      process.stdout.write(
        [
          '',
          `Storm on ${databaseId}: ${UPSTREAM} and its ${DEPENDENTS.length} dependents fail together; each dependent flips ${FLAPS} more times while ${UPSTREAM} is down`,
          '| behaviour | notifications per dependent owner | naming the upstream | to the upstream owner | owners told of the recovery | sends at the wire |',
          '|---|--:|--:|--:|--:|--:|',
          row('one per upstream incident (default)', grouped),
          row('attribution only (groupUpstreamIncidents: false)', perFlip),
          '',
        ].join('\n'),
      );

      for (const dependent of DEPENDENTS) {
        expect(grouped.views.get(`system:default/${dependent}`)).toEqual({
          notifications: 1,
          namingUpstream: 1,
          toldRecovered: true,
        });
        // One per flip: the outage, each flip's recovery and relapse, the end.
        expect(
          perFlip.views.get(`system:default/${dependent}`)?.notifications,
        ).toBe(2 + 2 * FLAPS);
      }
      // The rollup says so while it lasts, whatever the notifications do.
      expect(grouped.causedBy).toEqual([UPSTREAM_REF, undefined]);
      expect(perFlip.causedBy).toEqual([UPSTREAM_REF, undefined]);
      expect(grouped.views.get(UPSTREAM_REF)).toEqual({
        notifications: 2, // its outage, and its recovery
        namingUpstream: 0,
        toldRecovered: true,
      });
    },
  );

  /** The database and one dependent, on a clock the test moves. */
  async function pair(
    databaseId: Parameters<typeof testbed.setup>[0],
    settings: Partial<NotificationSettings>,
  ) {
    const [upstream, dependent] = STORM_SLICES;
    const { store } = await testbed.setup(databaseId, [upstream, dependent]);
    const catalog = catalogServiceMock({ entities: stormCatalog() });
    const clock = { now: Date.UTC(2026, 11, 8, 9, 0, 0) };
    const health = testbed.instance(store, catalog, 'pair', {
      notificationSettings: settings,
      now: () => clock.now,
    });
    const set = async (
      slice: DesiredSlice,
      status: 'healthy' | 'unhealthy',
    ) => {
      await testbed.setStatus(store, slice, status, 'connection refused');
      await health.transitions.check([slice]);
    };
    /** Moves the clock on and delivers what fell due. */
    const after = async (minutes: number) => {
      clock.now += minutes * 60_000;
      await health.deliver();
    };
    const titlesTo = (system: string) =>
      health.notifications.sent
        .filter(n => n.recipients.entityRef === `system:default/${system}`)
        .map(n => n.payload.title);
    await set(upstream, 'healthy');
    await set(dependent, 'healthy');
    return { upstream, dependent, set, after, titlesTo, health };
  }

  it.each(databases.eachSupportedId())(
    'with suppression on, tells a dependent nothing while the upstream explains it, and once if it still fails the grace after the upstream recovered, on %p',
    async databaseId => {
      const { upstream, dependent, set, after, titlesTo } = await pair(
        databaseId,
        { suppressUpstream: true, upstreamGraceMs: 5 * 60_000 },
      );
      await set(upstream, 'unhealthy');
      await set(dependent, 'unhealthy');
      await after(30);
      expect(titlesTo('dep-01')).toEqual([]);
      expect(titlesTo(UPSTREAM)).toEqual([
        'shared-db in production is unhealthy',
      ]);

      await set(upstream, 'healthy');
      await after(4);
      expect(titlesTo('dep-01')).toEqual([]);
      await after(1.5);
      expect(titlesTo('dep-01')).toEqual([
        'dep-01 in production is still unhealthy after system:default/shared-db recovered',
      ]);
      await after(30);
      expect(titlesTo('dep-01')).toHaveLength(1); // once

      await set(dependent, 'healthy');
      expect(titlesTo('dep-01').at(-1)).toBe('dep-01 in production recovered');
    },
  );

  it.each(databases.eachSupportedId())(
    'with suppression on, tells nothing at all of an outage that ends with its upstream incident, on %p',
    async databaseId => {
      const { upstream, dependent, set, after, titlesTo } = await pair(
        databaseId,
        { suppressUpstream: true, upstreamGraceMs: 5 * 60_000 },
      );
      await set(upstream, 'unhealthy');
      await set(dependent, 'unhealthy');
      await after(10);
      await set(upstream, 'healthy');
      await after(1);
      await set(dependent, 'healthy');
      await after(10);
      expect(titlesTo('dep-01')).toEqual([]);
      expect(titlesTo(UPSTREAM)).toEqual([
        'shared-db in production is unhealthy',
        'shared-db in production recovered',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'reminds the owner of an outage still under way every remindAfter, in its scope, until it recovers, on %p',
    async databaseId => {
      const { upstream, set, after, titlesTo, health } = await pair(
        databaseId,
        { remindAfterMs: 60 * 60_000 },
      );
      await set(upstream, 'unhealthy');
      await after(59);
      expect(titlesTo(UPSTREAM)).toEqual([
        'shared-db in production is unhealthy',
      ]);
      await after(1);
      await after(60);
      expect(titlesTo(UPSTREAM)).toEqual([
        'shared-db in production is unhealthy',
        'shared-db in production is still unhealthy',
        'shared-db in production is still unhealthy',
      ]);
      const scopes = new Set(
        health.notifications.sent.map(n => n.payload.scope),
      );
      expect(scopes.size).toBe(1); // each reminder updates the one notification

      await set(upstream, 'healthy');
      await after(180);
      expect(titlesTo(UPSTREAM).slice(3)).toEqual([
        'shared-db in production recovered',
      ]);
    },
  );
});
