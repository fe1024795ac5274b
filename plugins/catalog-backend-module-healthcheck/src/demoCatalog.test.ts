import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Entity } from '@backstage/catalog-model';
import { MaintenanceWindowEntityProcessor } from './MaintenanceWindowEntityProcessor';
import { ServiceLevelObjectiveEntityProcessor } from './ServiceLevelObjectiveEntityProcessor';

/** The entities of the demo catalog's checks folder, as the catalog reads them. */
function demoEntities(kind: string): Entity[] {
  const folder = path.resolve(__dirname, '../../../demo/catalog/checks');
  return fs
    .readdirSync(folder)
    .flatMap(file =>
      parseAllDocuments(fs.readFileSync(path.join(folder, file), 'utf8')).map(
        document => document.toJS() as Entity,
      ),
    )
    .filter(entity => entity.kind === kind);
}

describe('the demo catalog', () => {
  it('has a maintenance window the processor accepts', async () => {
    const windows = demoEntities('MaintenanceWindow');
    expect(windows.map(entity => entity.metadata.name)).toEqual([
      'card-network-nightly-reset',
    ]);
    const processor = new MaintenanceWindowEntityProcessor();
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
    const processor = new ServiceLevelObjectiveEntityProcessor();
    for (const entity of objectives) {
      await expect(processor.validateEntityKind(entity)).resolves.toBe(true);
    }
  });
});
