import { TestDatabases } from '@backstage/backend-test-utils';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  PortalBackend,
  startPortalBackend,
} from '../__testUtils__/startPortalBackend';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';

// A whole portal per database.
jest.setTimeout(180_000);

/*
 * The catalog module says which systems a change touches as the catalog
 * processes it; the backend re-derives them at once. The poll and the full
 * pass are set an hour apart here, so only the announcement can make the
 * slices follow the catalog within the test.
 */
function catalog(options: {
  checkSystems: string[];
  paymentsEnvironments: string;
}) {
  const system = (name: string, environments: string) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      annotations: { 'vigil.dev/environments': environments },
    },
    spec: { owner: 'group:default/team-a' },
  });
  return [
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Group',
      metadata: { name: 'team-a' },
      spec: { type: 'team', children: [] },
    },
    system('payments', options.paymentsEnvironments),
    system('search', 'staging'),
    {
      apiVersion: 'vigil.dev/v1alpha1',
      kind: 'HealthCheck',
      metadata: { name: 'http' },
      spec: {
        type: 'tcp',
        target: '127.0.0.1:9',
        interval: '1m',
        owner: 'team-a',
        systems: options.checkSystems,
      },
    },
  ]
    .map(entity => stringify(entity))
    .join('---\n');
}

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'slices that follow catalog changes as the catalog announces them, on %p',
  databaseId => {
    let portal: PortalBackend;
    let catalogDir: string;
    let catalogFile: string;

    const liveSlices = async () => {
      const db = await portal.databaseOf('healthcheck');
      const rows: Array<{ system_ref: string; environment: string }> = await db(
        'healthcheck_slices',
      )
        .where({ removed: false })
        .select('system_ref', 'environment');
      return rows.map(row => `${row.system_ref} ${row.environment}`).sort();
    };

    beforeAll(async () => {
      catalogDir = mkdtempSync(join(tmpdir(), 'vigil-catalog-changes-'));
      catalogFile = join(catalogDir, 'catalog.yaml');
      writeFileSync(
        catalogFile,
        catalog({
          checkSystems: ['payments'],
          paymentsEnvironments: 'production',
        }),
      );
      portal = await startPortalBackend({
        databases,
        databaseId,
        catalogFile,
        config: {
          healthcheck: {
            reconcile: { interval: '1h', catalogPollInterval: '1h' },
            targets: { allowPlaceholderHosts: true },
          },
        },
      });
    });

    afterAll(async () => {
      await portal?.stop();
      rmSync(catalogDir, { recursive: true, force: true });
    });

    it('derives the slices of a system a check newly names, and of an environment a system gains', async () => {
      // The first full pass runs at start; the check's first announcement
      // may come before or after it, and either way ends here.
      await waitFor('the first slices', liveSlices, slices =>
        slices.includes('system:default/payments production'),
      );

      const changedAt = Date.now();
      writeFileSync(
        catalogFile,
        catalog({
          checkSystems: ['payments', 'search'],
          paymentsEnvironments: 'production',
        }),
      );
      await waitFor(
        'the slice of the newly named system',
        liveSlices,
        slices => slices.includes('system:default/search staging'),
        30_000,
      );
      const namedAfterMs = Date.now() - changedAt;

      writeFileSync(
        catalogFile,
        catalog({
          checkSystems: ['payments', 'search'],
          paymentsEnvironments: 'production,staging',
        }),
      );
      expect(
        await waitFor(
          'the slice of the new environment',
          liveSlices,
          slices => slices.includes('system:default/payments staging'),
          30_000,
        ),
      ).toEqual([
        'system:default/payments production',
        'system:default/payments staging',
        'system:default/search staging',
      ]);
      // Well inside the hour the poll waits (processing every second, the
      // listener's 2 s settle, a scoped pass).
      expect(namedAfterMs).toBeLessThan(30_000);
    });
  },
);
