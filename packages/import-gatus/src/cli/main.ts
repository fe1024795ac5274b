import { promises as fs } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { readGatusConfig } from '../io/readGatusConfig';
import { checkFiles, writeCheckFiles } from '../io/writeCheckFiles';
import {
  GatusImportOptions,
  translateGatusConfig,
} from '../translate/translateGatusConfig';
import { formatReport } from './formatReport';

const USAGE = `Usage: vigil-import-gatus <config.yaml or folder> [options]

Writes a HealthCheck entity for each Gatus endpoint it can translate, one
file per Gatus group, and reports each endpoint it cannot with the reason.
A folder is read as Gatus reads one: every .yaml/.yml file under it, merged.

Options:
  --out <dir>              where to write the entity files (default: gatus-healthchecks)
  --system <group>=<ref>   the system of a Gatus group (repeatable);
                           a group not mapped goes to the system of its own name
  --systems-file <file>    a YAML map of Gatus group to system ref
  --default-system <ref>   the system of endpoints without a group (default: ungrouped)
  --namespace <ns>         the entities' catalog namespace
  --owner <ref>            spec.owner of every check
  --dry-run                print the report, write nothing
  --help                   this text
`;

/** Where output goes; the process's streams unless a test captures them. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CliOutput = {
  out: text => process.stdout.write(text),
  err: text => process.stderr.write(text),
};

/** Runs the importer; resolves to the exit code (0 done, 1 bad usage or input). */
export async function main(
  argv: string[],
  output: CliOutput = processOutput,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string', default: 'gatus-healthchecks' },
        system: { type: 'string', multiple: true, default: [] },
        'systems-file': { type: 'string' },
        'default-system': { type: 'string' },
        namespace: { type: 'string' },
        owner: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    output.out(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    output.err(
      `${
        positionals.length === 0
          ? 'Name a Gatus config file or folder.'
          : `One config file or folder, not ${positionals.length}.`
      }\n\n${USAGE}`,
    );
    return 1;
  }
  try {
    const options: GatusImportOptions = {
      systems: {
        ...(values['systems-file']
          ? await readSystemsFile(values['systems-file'])
          : {}),
        ...parseSystemFlags(values.system ?? []),
      },
      defaultSystem: values['default-system'],
      namespace: values.namespace,
      owner: values.owner,
    };
    const source = await readGatusConfig(positionals[0]);
    const result = await translateGatusConfig(source.config, options);
    output.out(formatReport(result));
    if (!values['dry-run'] && result.checks.length > 0) {
      const written = await writeCheckFiles(
        values.out!,
        checkFiles(result.checks, result.maintenanceWindows),
      );
      output.out(`wrote ${written.join(', ')}\n`);
    }
    return 0;
  } catch (error) {
    output.err(`vigil-import-gatus: ${(error as Error).message}\n`);
    return 1;
  }
}

/** `--system core=shop` flags as a map; throws on one without `=`. */
export function parseSystemFlags(flags: string[]): Record<string, string> {
  const systems: Record<string, string> = {};
  for (const flag of flags) {
    const at = flag.lastIndexOf('=');
    if (at <= 0 || at === flag.length - 1) {
      throw new Error(
        `--system ${JSON.stringify(
          flag,
        )}: write <gatus group>=<system ref>, such as core=system:default/shop`,
      );
    }
    systems[flag.slice(0, at)] = flag.slice(at + 1);
  }
  return systems;
}

async function readSystemsFile(file: string): Promise<Record<string, string>> {
  const mapping: unknown = parse(await fs.readFile(file, 'utf8'));
  if (
    typeof mapping !== 'object' ||
    mapping === null ||
    Array.isArray(mapping)
  ) {
    throw new Error(`${file} must be a YAML map of Gatus group to system ref`);
  }
  for (const [group, ref] of Object.entries(mapping)) {
    if (typeof ref !== 'string' || ref === '') {
      throw new Error(
        `${file}: the system of group ${JSON.stringify(
          group,
        )} must be a ref such as system:default/shop`,
      );
    }
  }
  return mapping as Record<string, string>;
}
