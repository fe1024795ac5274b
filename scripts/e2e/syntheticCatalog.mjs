#!/usr/bin/env node
// A synthetic catalog for the browser test's performance measurements
// (issue 7): 2,000 Systems, a quarter of them with health checks, and one
// wide System with 20 checks in 3 environments. Every check probes the demo
// targets on loopback, so the statuses are real. The smoke test writes it
// into an ignored folder and loads it through app-config.e2e.yaml next to
// the demo catalog; the demo catalog and `npm start` never see it.
//
// By hand: `node scripts/e2e/syntheticCatalog.mjs`, then
// `node scripts/vigil.mjs start --config $PWD/app-config.yaml --config $PWD/scripts/e2e/app-config.e2e.yaml`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where app-config.e2e.yaml expects the file. */
export const SYNTHETIC_CATALOG_FILE = join(
  ROOT,
  'test-results',
  'e2e-catalog',
  'synthetic.yaml',
);

/**
 * The synthetic entities' System `spec.type`, so the test can count them in
 * the catalog (`filter=kind=system,spec.type=synthetic`).
 */
export const SYNTHETIC_SYSTEM_TYPE = 'synthetic';

export const FLEET_SYSTEM_COUNT = 2000;
/** See isChecked. */
export const FLEET_CHECKED_COUNT = FLEET_SYSTEM_COUNT / 4;
const FLEET_TEAM_COUNT = 10;
const FLEET_CHECK_INTERVAL = '30s';

/**
 * The wide System: 20 checks x 3 environments in its Health tab. "synthetic"
 * sorts after every demo system, so the demo's steps still find theirs on
 * the first page of the catalog and of the overview.
 */
export const WIDE_SYSTEM = {
  name: 'synthetic-wide',
  title: 'Synthetic wide system',
  environments: ['production', 'staging', 'canary'],
  checkCount: 20,
};

/**
 * The system of the maintenance step: owned by a group whose one member is
 * the demo guest, so the test, signed in as the guest, reads the
 * notifications its owner gets (the demo's teams have no guest among their
 * members). Through a group, not the guest itself: the catalog page would
 * otherwise open on the guest's own entities only. Not of the synthetic
 * type, and "synthetic" is not in its name, so the counts of the
 * performance measurements leave it out.
 */
export const MAINTENANCE_SYSTEM = {
  name: 'e2e-maintenance',
  title: 'E2E maintenance',
  owner: 'group:default/e2e-guests',
  member: 'user:development/guest',
  checkTitle: 'E2E maintenance health endpoint',
};

/** Names sort after the demo's systems (see WIDE_SYSTEM). */
export function fleetSystemName(index) {
  return `synthetic-${String(index).padStart(4, '0')}`;
}

function teamName(team) {
  return `synthetic-team-${String(team).padStart(2, '0')}`;
}

function wideCheckName(index) {
  return `${WIDE_SYSTEM.name}-check-${String(index).padStart(2, '0')}`;
}

/**
 * One fleet system in four has a check (500), as in a catalog where teams
 * are still adding theirs; the others are listed as unknown. Checking all
 * 2,000 works too, but their first statuses take the rollup minutes to work
 * through on a CI machine (about 12 systems a second), which the test would
 * have to wait for.
 */
function isChecked(index) {
  return index % 4 === 1;
}

/** One checked system in four also runs in staging: 625 fleet slices. */
function fleetEnvironments(index) {
  return index % 16 === 1 ? ['production', 'staging'] : ['production'];
}

/**
 * The demo targets' modes to set before the first probe, so the overview's
 * worst-first order has something to show: 20 checked fleet systems fail in
 * production, 8 are slow (degraded), and the wide system is slow in canary.
 * All of them sort after payments and identity, which the demo steps look
 * for among the unhealthy.
 */
export function syntheticTargetModes() {
  const modes = [];
  // x01 and x49 are checked systems (isChecked).
  for (let index = 1; index <= FLEET_SYSTEM_COUNT; index += 100) {
    modes.push({
      environment: 'production',
      system: fleetSystemName(index),
      mode: 'failing',
    });
  }
  for (let index = 49; index <= 800; index += 100) {
    modes.push({
      environment: 'production',
      system: fleetSystemName(index),
      mode: 'degraded',
    });
  }
  modes.push({
    environment: 'canary',
    system: WIDE_SYSTEM.name,
    mode: 'degraded',
  });
  return modes;
}

function yamlList(items, indent) {
  return items.map(item => `${' '.repeat(indent)}- ${item}`).join('\n');
}

function group(team) {
  return `apiVersion: backstage.io/v1alpha1
kind: Group
metadata:
  name: ${teamName(team)}
  description: Owns synthetic systems of the performance test
spec:
  type: team
  children: []
`;
}

/** An owner as a full entity ref; a bare name is a synthetic team. */
function ownerRef(owner) {
  return owner.includes(':') ? owner : `group:default/${owner}`;
}

function system({
  name,
  title,
  owner,
  environments,
  description,
  type = SYNTHETIC_SYSTEM_TYPE,
}) {
  return `apiVersion: backstage.io/v1alpha1
kind: System
metadata:
  name: ${name}
  title: ${title}
  description: ${description}
  annotations:
    vigil.dev/environments: ${environments.join(',')}
spec:
  owner: ${ownerRef(owner)}
  type: ${type}
`;
}

function healthCheck({ name, title, target, interval, systems, owner }) {
  return `apiVersion: vigil.dev/v1alpha1
kind: HealthCheck
metadata:
  name: ${name}
  title: ${title}
spec:
  type: http
  target: ${target}
  interval: ${interval}
  timeout: 2s
  conditions:
    - '[STATUS] == 200'
    - '[BODY].status == UP'
    - condition: '[RESPONSE_TIME] < 500'
      severity: degraded
  thresholds:
    failure: 2
    success: 1
  systems:
${yamlList(systems, 4)}
  owner: ${ownerRef(owner)}
`;
}

/** The catalog file's text: groups, systems and checks, one document each. */
export function syntheticCatalogYaml() {
  const documents = [];
  const systemsOfTeam = new Map();
  for (let team = 1; team <= FLEET_TEAM_COUNT; team++) {
    documents.push(group(team));
    systemsOfTeam.set(team, []);
  }
  for (let index = 1; index <= FLEET_SYSTEM_COUNT; index++) {
    // Runs of four systems per team, so each team has checked ones.
    const team = ((Math.ceil(index / 4) - 1) % FLEET_TEAM_COUNT) + 1;
    const name = fleetSystemName(index);
    if (isChecked(index)) {
      systemsOfTeam.get(team).push(`system:default/${name}`);
    }
    documents.push(
      system({
        name,
        title: `Synthetic ${String(index).padStart(4, '0')}`,
        owner: teamName(team),
        environments: fleetEnvironments(index),
        description: isChecked(index)
          ? 'One of 2,000 systems for the overview page test'
          : 'One of 2,000 systems for the overview page test; no checks yet',
      }),
    );
  }
  // One check per team, as a team would declare its fleet's endpoint.
  for (const [team, systems] of systemsOfTeam) {
    documents.push(
      healthCheck({
        name: `${teamName(team)}-health`,
        title: `Synthetic team ${team} health endpoints`,
        target:
          'http://127.0.0.1:7010/{{ environment.name }}/{{ system.name }}/health',
        interval: FLEET_CHECK_INTERVAL,
        systems,
        owner: teamName(team),
      }),
    );
  }

  documents.push(
    system({
      name: WIDE_SYSTEM.name,
      title: WIDE_SYSTEM.title,
      owner: teamName(1),
      environments: WIDE_SYSTEM.environments,
      description: `${WIDE_SYSTEM.checkCount} checks in ${WIDE_SYSTEM.environments.length} environments for the Health tab test`,
    }),
  );
  for (let index = 1; index <= WIDE_SYSTEM.checkCount; index++) {
    documents.push(
      healthCheck({
        name: wideCheckName(index),
        title: `Wide check ${String(index).padStart(2, '0')}`,
        // Each check its own path under the system's switchable target.
        target: `http://127.0.0.1:7010/{{ environment.name }}/{{ system.name }}/health/check-${index}`,
        interval: '10s',
        systems: [`system:default/${WIDE_SYSTEM.name}`],
        owner: teamName(1),
      }),
    );
  }
  documents.push(
    `apiVersion: backstage.io/v1alpha1
kind: Group
metadata:
  name: ${MAINTENANCE_SYSTEM.owner.split('/')[1]}
  description: The demo guest, to receive the maintenance step's notifications
spec:
  type: team
  children: []
  members:
    - ${MAINTENANCE_SYSTEM.member}
`,
    system({
      name: MAINTENANCE_SYSTEM.name,
      title: MAINTENANCE_SYSTEM.title,
      owner: MAINTENANCE_SYSTEM.owner,
      environments: ['production'],
      description: 'Fails inside a maintenance window in the browser test',
      type: 'e2e',
    }),
    healthCheck({
      name: `${MAINTENANCE_SYSTEM.name}-health`,
      title: MAINTENANCE_SYSTEM.checkTitle,
      target:
        'http://127.0.0.1:7010/{{ environment.name }}/{{ system.name }}/health',
      interval: '10s',
      systems: [`system:default/${MAINTENANCE_SYSTEM.name}`],
      owner: MAINTENANCE_SYSTEM.owner,
    }),
  );
  return `# Generated by scripts/e2e/syntheticCatalog.mjs for the browser test; do not edit.\n${documents.join(
    '---\n',
  )}`;
}

/** Writes the catalog file; returns its path. */
export function writeSyntheticCatalog(file = SYNTHETIC_CATALOG_FILE) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, syntheticCatalogYaml());
  return file;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${writeSyntheticCatalog()}\n`);
}
