/**
 * Reads a Gatus configuration as Gatus does: one YAML file, or every
 * `.yaml` and `.yml` file under a folder merged into one (maps key by key,
 * lists one after another; one key with two different values is an error).
 */
import { promises as fs } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/** The largest configuration file read, in bytes; Gatus configs are a few KiB. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** The most files merged from one folder. */
const MAX_FILES = 1000;

/** A Gatus configuration, and the files it was read from. */
export interface GatusConfigSource {
  config: Record<string, unknown>;
  files: string[];
}

/** Reads `path`, a file or a folder. Errors name the file and what is wrong. */
export async function readGatusConfig(
  path: string,
): Promise<GatusConfigSource> {
  const stat = await fs.stat(path).catch(error => {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  });
  const files = stat.isDirectory() ? await yamlFilesUnder(path) : [path];
  if (files.length === 0) {
    throw new Error(`${path} holds no .yaml or .yml file`);
  }
  let config: Record<string, unknown> = {};
  for (const file of files) {
    const parsed = await readYamlFile(file);
    config = mergeGatusConfig(config, parsed, relative(path, file) || file);
  }
  return { config, files };
}

/**
 * `next` merged into `base`: maps key by key, lists concatenated, the same
 * scalar twice kept once. Throws naming the key set twice differently.
 */
export function mergeGatusConfig(
  base: Record<string, unknown>,
  next: Record<string, unknown>,
  source: string,
  path: string[] = [],
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) {
    const at = [...path, key];
    const existing = merged[key];
    if (existing === undefined) {
      merged[key] = value;
    } else if (Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...existing, ...value];
    } else if (isMap(existing) && isMap(value)) {
      merged[key] = mergeGatusConfig(existing, value, source, at);
    } else if (JSON.stringify(existing) !== JSON.stringify(value)) {
      throw new Error(
        `${source}: ${at.join(
          '.',
        )} is already set to another value by an earlier file`,
      );
    }
  }
  return merged;
}

async function readYamlFile(file: string): Promise<Record<string, unknown>> {
  const stat = await fs.stat(file);
  if (stat.size > MAX_FILE_BYTES) {
    throw new Error(
      `${file} is ${stat.size} bytes; at most ${MAX_FILE_BYTES} are read`,
    );
  }
  const text = await fs.readFile(file, 'utf8');
  let parsed: unknown;
  try {
    // Gatus's examples use YAML merge keys (`<<: *defaults`).
    parsed = parse(text, { merge: true, maxAliasCount: 1000 });
  } catch (error) {
    throw new Error(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) {
    return {};
  }
  if (!isMap(parsed)) {
    throw new Error(`${file} must hold a YAML map of Gatus settings`);
  }
  return parsed;
}

async function yamlFilesUnder(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(path);
      } else if (/\.ya?ml$/i.test(entry.name)) {
        if (found.length >= MAX_FILES) {
          throw new Error(`${folder} holds more than ${MAX_FILES} YAML files`);
        }
        found.push(path);
      }
    }
  };
  await walk(folder);
  return found;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
