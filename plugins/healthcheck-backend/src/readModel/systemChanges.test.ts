import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import {
  listenForSystemChanges,
  systemRefsOfNotification,
} from './systemChanges';

jest.setTimeout(60_000);

describe('systemRefsOfNotification', () => {
  it('reads one ref a line, and nothing from an empty payload', () => {
    expect(
      systemRefsOfNotification('system:default/a\nsystem:team-x/b'),
    ).toEqual(['system:default/a', 'system:team-x/b']);
    expect(systemRefsOfNotification('')).toEqual([]);
    expect(systemRefsOfNotification(undefined)).toEqual([]);
  });
});

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');

(postgres.length > 0 ? describe : describe.skip)(
  'system change notifications on PostgreSQL',
  () => {
    const databases = TestDatabases.create({ ids: postgres });

    it('names every system a statement touched, over as many notifications as its refs need', async () => {
      const knex = await databases.init('POSTGRES_15');
      const slices = await DatabaseSliceStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const notifications: string[][] = [];
      const listener = await listenForSystemChanges(knex, {
        onChanged: refs => notifications.push(refs),
        onLost: () => {},
      });
      try {
        // About 40 bytes a ref: 600 of them are three times the 8000 bytes
        // one notification may carry.
        const systems = Array.from(
          { length: 600 },
          (_, i) => `system:default/a-system-with-a-longer-name-${i}`,
        );
        await slices.applyChanges({
          write: systems.map(systemRef => {
            const key = {
              checkId: 'healthcheck:default/api',
              systemRef,
              environment: 'production',
            };
            return { paused: true, slice: { id: encodeSliceId(key), ...key } };
          }),
          remove: [],
        });
        const start = Date.now();
        while (
          notifications.flat().length < systems.length &&
          Date.now() - start < 5_000
        ) {
          await new Promise(resolve => setTimeout(resolve, 10));
        }
        expect(new Set(notifications.flat())).toEqual(new Set(systems));
        expect(notifications.length).toBeGreaterThan(2);
      } finally {
        await listener.close();
      }
    });
  },
);
