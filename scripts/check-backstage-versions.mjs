#!/usr/bin/env node
// Fails when the install mixes Backstage releases: every @backstage/* package
// in yarn.lock must resolve to exactly one version, the one pinned in the root
// package.json `resolutions` (Backstage 1.55). Caret ranges would otherwise
// pull parts of a later release in, and a mixed backend fails at start.
// Also fails when a tracked file names a package registry's host: installs
// use the clients' configured registry, never one written into this repo.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pins = JSON.parse(
  readFileSync(join(root, 'package.json'), 'utf8'),
).resolutions;
const lock = readFileSync(join(root, 'yarn.lock'), 'utf8');

const versions = new Map();
for (const [, name, version] of lock.matchAll(
  /^ {2}resolution: "(@backstage\/[^@"]+)@npm:([^"]+)"$/gm,
)) {
  if (!versions.has(name)) versions.set(name, new Set());
  versions.get(name).add(version);
}

const problems = [];
for (const [name, found] of [...versions].sort()) {
  const list = [...found];
  if (list.length > 1) {
    problems.push(
      `${name} is installed in ${list.length} versions: ${list.join(', ')}`,
    );
  } else if (pins[name] !== list[0]) {
    problems.push(
      `${name}@${
        list[0]
      } is not pinned to a Backstage 1.55 version in the root package.json resolutions (pin: ${
        pins[name] ?? 'none'
      })`,
    );
  }
}

const registryHost = /registry\.(npmjs\.org|yarnpkg\.com|npmmirror\.com)/;
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root })
  .toString()
  .split('\0')
  .filter(Boolean);
for (const file of tracked) {
  let text;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    continue;
  }
  if (registryHost.test(text)) {
    problems.push(`${file} names a package registry host`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`- ${problem}`);
  console.error(`${problems.length} problem(s) with the Backstage pin`);
  process.exit(1);
}
console.log(
  `${versions.size} @backstage/* packages, one version each, all pinned to Backstage 1.55`,
);
