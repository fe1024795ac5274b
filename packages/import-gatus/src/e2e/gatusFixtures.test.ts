/**
 * The importer end to end over Gatus's own example configurations, kept
 * outside this repository (`../shared/fixtures/gatus/configs`, or
 * `GATUS_FIXTURES`): each file read as a config, translated, written as
 * catalog files, read back and validated again. Every endpoint must come
 * out converted and valid, or reported.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { Entity } from '@backstage/catalog-model';
import {
  formatSpecProblems,
  validateMaintenanceWindowSpec,
} from '@vigil/plugin-healthcheck-common';
import { maintenanceRecurrenceRules } from '@vigil/plugin-healthcheck-node';
import { parseAllDocuments } from 'yaml';
import { summaryLine } from '../cli/formatReport';
import { main } from '../cli/main';
import { readGatusConfig } from '../io/readGatusConfig';
import { checkFiles, writeCheckFiles } from '../io/writeCheckFiles';
import { translateGatusConfig } from '../translate/translateGatusConfig';
import { findImportedEntityProblems } from '../translate/validateImportedEntity';

const REPO_ROOT = resolve(__dirname, '../../../..');
const FIXTURES =
  process.env.GATUS_FIXTURES ??
  resolve(REPO_ROOT, '../shared/fixtures/gatus/configs');
const BIN = resolve(__dirname, '../../bin/vigil-import-gatus');

/** The files Gatus's docker-compose example mounts together as one folder. */
const MULTI_FILE_EXAMPLE = /^docker-compose-multiple-config-files-/;

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter(entry => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map(entry => join(entry.parentPath, entry.name))
    .sort();
}

/** Every endpoint a config declares, counted from the raw YAML, not by the importer. */
function declaredEndpoints(config: Record<string, unknown>): number {
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  return (
    list(config.endpoints).length +
    list(config['external-endpoints']).length +
    list(config.suites).reduce<number>(
      (sum, suite) => sum + list((suite as any)?.endpoints).length,
      0,
    )
  );
}

const fixturesPresent = existsSync(FIXTURES);

(fixturesPresent ? describe : describe.skip)(
  `vigil-import-gatus over the Gatus fixtures${
    fixturesPresent ? '' : ` (skipped: no fixtures at ${FIXTURES})`
  }`,
  () => {
    let out: string;
    const totals = { endpoints: 0, converted: 0, reported: 0 };

    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), 'vigil-import-gatus-'));
    });
    afterAll(async () => {
      await rm(out, { recursive: true, force: true });
      if (totals.endpoints > 0) {
        process.stdout.write(`${summaryLine(totals)}\n`);
      }
    });

    it('converts every endpoint of every file into a valid HealthCheck, or reports it', async () => {
      const files = await yamlFiles(FIXTURES);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const name = relative(FIXTURES, file);
        const { config } = await readGatusConfig(file);
        const result = await translateGatusConfig(config);

        expect({
          file: name,
          accounted: result.checks.length + result.reported.length,
        }).toEqual({ file: name, accounted: declaredEndpoints(config) });
        expect(result.endpointCount).toBe(declaredEndpoints(config));
        for (const endpoint of result.reported) {
          expect(endpoint.reasons.length).toBeGreaterThan(0);
        }

        // What is written is what the catalog reads: parse it back, validate again.
        const folder = join(out, basename(file, '.yaml'));
        const written = await writeCheckFiles(
          folder,
          checkFiles(result.checks, result.maintenanceWindows),
        );
        const entities: Entity[] = [];
        for (const path of written) {
          for (const document of parseAllDocuments(
            await readFile(path, 'utf8'),
          )) {
            expect(document.errors).toEqual([]);
            entities.push(document.toJS());
          }
        }
        expect(entities).toHaveLength(
          result.checks.length + result.maintenanceWindows.length,
        );
        for (const entity of entities) {
          expect({
            file: name,
            entity: entity.metadata.name,
            problems:
              entity.kind === 'MaintenanceWindow'
                ? formatSpecProblems(
                    validateMaintenanceWindowSpec(entity.spec, {
                      recurrence: maintenanceRecurrenceRules,
                    }),
                  )
                : await findImportedEntityProblems(entity, result.secrets),
          }).toEqual({
            file: name,
            entity: entity.metadata.name,
            problems: [],
          });
        }

        totals.endpoints += result.endpointCount;
        totals.converted += result.checks.length;
        totals.reported += result.reported.length;
      }
      expect(totals.converted + totals.reported).toBe(totals.endpoints);
    });

    it('reads the multiple-files example as one folder, as Gatus mounts it', async () => {
      const folder = join(out, 'multiple-config-files');
      await mkdir(folder);
      const files = (await yamlFiles(FIXTURES)).filter(file =>
        MULTI_FILE_EXAMPLE.test(basename(file)),
      );
      for (const file of files) {
        await copyFile(file, join(folder, basename(file)));
      }
      const printed: string[] = [];
      const code = await main([folder, '--out', join(out, 'multi-out')], {
        out: text => printed.push(text),
        err: text => printed.push(text),
      });
      expect(code).toBe(0);
      expect(printed.join('')).toContain(
        'gatus import: 4 endpoints, 2 converted, 2 reported',
      );
      expect((await readdir(join(out, 'multi-out'))).sort()).toEqual([
        'backend.yaml',
        'frontend.yaml',
      ]);
    });

    it('runs as the vigil-import-gatus command', () => {
      const run = spawnSync(
        process.execPath,
        [BIN, join(FIXTURES, 'config.yaml'), '--dry-run'],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(
        /^gatus import: 7 endpoints, \d+ converted, \d+ reported$/m,
      );
    });
  },
);
