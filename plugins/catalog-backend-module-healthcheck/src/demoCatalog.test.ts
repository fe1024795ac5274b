import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { canonicalEntityRef } from '@vigil/plugin-healthcheck-common';
import { MaintenanceWindowEntityProcessor } from './MaintenanceWindowEntityProcessor';
import { ServiceLevelObjectiveEntityProcessor } from './ServiceLevelObjectiveEntityProcessor';

/** The entities of a folder of the demo catalog, as the catalog reads them. */
function demoEntities(kind: string, folderName = 'checks'): Entity[] {
  const folder = path.resolve(__dirname, '../../../demo/catalog', folderName);
  return fs
    .readdirSync(folder)
    .flatMap(file =>
      parseAllDocuments(fs.readFileSync(path.join(folder, file), 'utf8')).map(
        document => document.toJS() as Entity,
      ),
    )
    .filter(entity => entity.kind === kind);
}

/** The owners of the demo's systems and checks, as the processors read them. */
const ownership = {
  rule: 'owner' as const,
  logger: { warn: jest.fn() },
  readOwners: async () =>
    new Map(
      [
        ...demoEntities('System', 'systems'),
        ...demoEntities('HealthCheck'),
      ].map(entity => [
        stringifyEntityRef(entity).toLowerCase(),
        {
          owner: canonicalEntityRef(entity.spec?.owner as string, {
            defaultKind: 'group',
          }),
        },
      ]),
    ),
};

describe('the demo catalog', () => {
  it('has a maintenance window the processor accepts', async () => {
    const windows = demoEntities('MaintenanceWindow');
    expect(windows.map(entity => entity.metadata.name)).toEqual([
      'card-network-nightly-reset',
    ]);
    // Its owner owns what it covers.
    const processor = new MaintenanceWindowEntityProcessor({ ownership });
    for (const entity of windows) {
      await expect(processor.validateEntityKind(entity)).resolves.toBe(true);
    }
  });

  it('has service-level objectives the processor accepts', async () => {
    const objectives = demoEntities('ServiceLevelObjective');
    expect(objectives.map(entity => entity.metadata.name)).toEqual([
      'payments-availability',
      'payments-latency',
    ]);
    const processor = new ServiceLevelObjectiveEntityProcessor({ ownership });
    for (const entity of objectives) {
      await expect(processor.validateEntityKind(entity)).resolves.toBe(true);
    }
  });
});
