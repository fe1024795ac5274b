import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { toEntityName } from '../translate/entityNames';
import {
  ImportedCheck,
  ImportedMaintenanceWindow,
} from '../translate/translateGatusConfig';

/** The file of endpoints without a group. */
const UNGROUPED_FILE = 'ungrouped.yaml';
/** The file of the maintenance windows: a group's file name never starts with `_`. */
const MAINTENANCE_FILE = '_maintenance-windows.yaml';

/**
 * The catalog files of the checks: one per Gatus group, named after it,
 * each check one YAML document. File name → content, in the checks' order.
 */
export function checkFiles(
  checks: ReadonlyArray<ImportedCheck>,
  maintenanceWindows: ReadonlyArray<ImportedMaintenanceWindow> = [],
): Map<string, string> {
  const byFile = new Map<string, ImportedCheck[]>();
  for (const check of checks) {
    const file =
      check.group === undefined
        ? UNGROUPED_FILE
        : `${toEntityName(check.group, 'group')}.yaml`;
    byFile.set(file, [...(byFile.get(file) ?? []), check]);
  }
  const files = new Map<string, string>();
  for (const [file, fileChecks] of byFile) {
    const group = fileChecks[0].group;
    const header = `# HealthChecks imported from Gatus by vigil-import-gatus${
      group === undefined
        ? ' (endpoints without a group)'
        : `, group "${group}"`
    }.\n`;
    const documents = fileChecks.map(check =>
      stringify(check.entity, { lineWidth: 0 }),
    );
    files.set(file, `${header}${documents.join('---\n')}`);
  }
  if (maintenanceWindows.length > 0) {
    files.set(
      MAINTENANCE_FILE,
      `# MaintenanceWindows imported from Gatus by vigil-import-gatus.\n${maintenanceWindows
        .map(window => stringify(window.entity, { lineWidth: 0 }))
        .join('---\n')}`,
    );
  }
  return files;
}

/** Writes the files into `folder`, made if missing; replaces files of the same name. */
export async function writeCheckFiles(
  folder: string,
  files: Map<string, string>,
): Promise<string[]> {
  await fs.mkdir(folder, { recursive: true });
  const written: string[] = [];
  for (const [file, content] of files) {
    const path = join(folder, file);
    await fs.writeFile(path, content, 'utf8');
    written.push(path);
  }
  return written;
}
