import { Entity } from '@backstage/catalog-model';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const DEMO_CATALOG = path.resolve(__dirname, '../../../../../demo/catalog');

/** Every entity of the demo catalog (demo/catalog/**.yaml), as the catalog would read it. */
export function readDemoCatalog(): Entity[] {
  const files = ['systems', 'checks'].flatMap(folder =>
    fs
      .readdirSync(path.join(DEMO_CATALOG, folder))
      .filter(file => file.endsWith('.yaml'))
      .sort()
      .map(file => path.join(DEMO_CATALOG, folder, file)),
  );
  return files.flatMap(file =>
    parseAllDocuments(fs.readFileSync(file, 'utf8')).map(
      document => document.toJS() as Entity,
    ),
  );
}
