// Pins every @backstage/* package of a generated app to Backstage 1.55.
//
// `@backstage/create-app` would seed the app's yarn.lock with the release's
// versions, from a host this machine cannot reach; without it the template's
// caret ranges float to later releases, and a backend that mixes releases
// fails at start. So the app's root `resolutions` pin, in this order:
// the monorepo's own pins (the 1.55 set), the versions the template names
// (create-app 0.9.2 is 1.55), and then, for every other @backstage/* package
// the install brings in, the highest version that a pinned package's range
// asks for at least: Backstage publishes `^X.Y.Z` with X.Y.Z the version of
// the same release, so that is the 1.55 version. It installs again until
// every @backstage/* package in the lockfile is pinned.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const MAX_ROUNDS = 6;

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function plainVersion(range) {
  const match = /^[\^~]?(\d+\.\d+\.\d+(?:-[\w.]+)?)$/.exec(range);
  return match?.[1];
}

/** The pins the monorepo and the app's own manifests give. */
function initialPins(repoRoot, appDir, workspaces) {
  const pins = {};
  const repoResolutions = readJson(join(repoRoot, 'package.json')).resolutions;
  for (const [name, version] of Object.entries(repoResolutions)) {
    if (name.startsWith('@backstage/') && plainVersion(version)) {
      pins[name] = plainVersion(version);
    }
  }
  for (const workspace of workspaces) {
    const manifest = readJson(join(appDir, workspace, 'package.json'));
    for (const field of ['dependencies', 'devDependencies']) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (name.startsWith('@backstage/') && plainVersion(range)) {
          pins[name] ??= plainVersion(range);
        }
      }
    }
  }
  return pins;
}

/** `@backstage/x@npm:1.2.3` -> `@backstage/x`. */
function nameOf(resolution) {
  return resolution.slice(0, resolution.indexOf('@', 1));
}

/** Pins for the @backstage/* packages the lockfile has that are not pinned yet. */
function missingPins(lockfile, pins) {
  const entries = Object.values(parse(lockfile)).filter(
    entry => entry?.resolution,
  );
  const wanted = {};
  for (const entry of entries) {
    const name = nameOf(entry.resolution);
    const version = entry.resolution.slice(name.length + '@npm:'.length);
    if (!name.startsWith('@backstage/') || pins[name] !== version) {
      continue;
    }
    for (const [dependency, range] of Object.entries(
      entry.dependencies ?? {},
    )) {
      const floor = plainVersion(range.replace(/^npm:/, ''));
      if (!dependency.startsWith('@backstage/') || pins[dependency] || !floor) {
        continue;
      }
      const known = wanted[dependency];
      if (!known || compareVersions(floor, known) > 0) {
        wanted[dependency] = floor;
      }
    }
  }
  const unpinned = new Set(
    entries
      .map(entry => nameOf(entry.resolution))
      .filter(name => name.startsWith('@backstage/') && !pins[name]),
  );
  return { wanted, unpinned: [...unpinned].filter(name => !wanted[name]) };
}

function compareVersions(a, b) {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) {
    if (pa[i] !== pb[i]) return pa[i] - pb[i];
  }
  return 0;
}

/**
 * Pins the app to 1.55 and installs it; `install()` runs `yarn install`
 * in the app and returns its exit status.
 */
export function pinBackstageRelease({ repoRoot, appDir, install, log }) {
  const manifestFile = join(appDir, 'package.json');
  const manifest = readJson(manifestFile);
  const pins = initialPins(repoRoot, appDir, [
    '.',
    'packages/app',
    'packages/backend',
  ]);
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    manifest.resolutions = { ...manifest.resolutions, ...pins };
    writeJson(manifestFile, manifest);
    log(`install round ${round}: ${Object.keys(pins).length} pins`);
    if (install() !== 0) {
      throw new Error(`yarn install failed in ${appDir}`);
    }
    const { wanted, unpinned } = missingPins(
      readFileSync(join(appDir, 'yarn.lock'), 'utf8'),
      pins,
    );
    if (Object.keys(wanted).length === 0) {
      if (unpinned.length > 0) {
        throw new Error(
          `no 1.55 version found for ${unpinned.join(
            ', ',
          )}: no pinned package asks for them`,
        );
      }
      return pins;
    }
    log(`pinning ${Object.keys(wanted).join(', ')}`);
    Object.assign(pins, wanted);
  }
  throw new Error(`the pins did not settle in ${MAX_ROUNDS} installs`);
}
