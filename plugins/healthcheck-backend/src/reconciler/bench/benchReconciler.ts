/* eslint-disable no-console */
/*
 * Times the pure half of the reconciler on a synthetic catalog (by default
 * 10,000 systems x 3 environments x 2 checks = 60,000 slices): resolving
 * environments, deriving the desired slices, and planning against what the
 * scheduler holds, in full and for one system.
 *
 *   ../../node_modules/.bin/sucrase-node \
 *     src/reconciler/bench/benchReconciler.ts [--systems N] [--runs N]
 *
 * (sucrase rather than Node's type stripping: healthcheck-common's sources
 * use parameter properties and type imports without `type`.)
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Entity } from '@backstage/catalog-model';
import type { HealthCheckSpec } from '@vigil/plugin-healthcheck-common';
import {
  desiredSlices,
  type ReconcilableCheck,
  type SystemEnvironments,
} from '../desiredSlices';
import { planReconcile, type HeldSlice } from '../planReconcile';
import {
  groupMembersBySystem,
  resolveEnvironments,
} from '../resolveEnvironments';

/** N systems, each listing two environments and a member adding a third. */
function syntheticCatalog(systemCount: number): Entity[] {
  const entities: Entity[] = [];
  for (let i = 0; i < systemCount; i++) {
    const name = `system-${i}`;
    entities.push({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'System',
      metadata: {
        name,
        annotations: { 'vigil.dev/environments': 'production,staging' },
      },
      spec: { owner: 'team' },
    });
    for (const [suffix, environment] of [
      ['web', undefined],
      ['canary', 'canary'],
    ] as const) {
      entities.push({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: {
          name: `${name}-${suffix}`,
          annotations: environment
            ? { 'vigil.dev/environment': environment }
            : undefined,
        },
        spec: { type: 'service', owner: 'team', system: name },
      });
    }
  }
  return entities;
}

/** Two checks per system: an http one with an override and a tcp one. */
function syntheticChecks(systemCount: number): ReconcilableCheck[] {
  const checks: ReconcilableCheck[] = [];
  for (let i = 0; i < systemCount; i++) {
    const http: HealthCheckSpec = {
      type: 'http',
      target:
        'https://{{ system.name }}.{{ environment.name }}.example.com/health',
      config: { method: 'GET', headers: { Accept: 'application/json' } },
      environmentOverrides: {
        staging: { config: { headers: { Authorization: 'staging' } } },
      },
      conditions: ['[STATUS] == 200', '[BODY].status == UP'],
      thresholds: { failure: 2, success: 1 },
      systems: [`system-${i}`],
    };
    const tcp: HealthCheckSpec = {
      type: 'tcp',
      target: 'tcp://{{ system.name }}-db.{{ environment.name }}:5432',
      conditions: ['[CONNECTED] == true'],
      systems: [`system-${i}`],
    };
    for (const [kind, spec] of [
      ['http', http],
      ['tcp', tcp],
    ] as const) {
      const id = `healthcheck:default/system-${i}-${kind}`;
      checks.push({
        id,
        source: { kind: 'gitops', entityRef: id },
        spec,
        intervalMs: 30_000,
        timeoutMs: 5_000,
      });
    }
  }
  return checks;
}

function time<T>(fn: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = fn();
  return { result, ms: performance.now() - start };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(args: string[]) {
  const valueOf = (flag: string, fallback: number) => {
    const index = args.indexOf(flag);
    return index === -1 ? fallback : Number(args[index + 1]);
  };
  const systemCount = valueOf('--systems', 10_000);
  const runs = valueOf('--runs', 5);
  const entities = syntheticCatalog(systemCount);
  const checks = syntheticChecks(systemCount);

  const rows: Array<[string, number[], string]> = [];
  const record = (name: string, ms: number, note: string) => {
    const row = rows.find(r => r[0] === name);
    if (row) {
      row[1].push(ms);
    } else {
      rows.push([name, [ms], note]);
    }
  };

  for (let run = 0; run < runs; run++) {
    const environments = time(() => {
      const members = groupMembersBySystem(entities);
      return entities
        .filter(e => e.kind === 'System')
        .map(
          (system): SystemEnvironments => ({
            ref: `system:default/${system.metadata.name}`,
            name: system.metadata.name,
            environments: resolveEnvironments({
              system,
              members:
                members.get(`system:default/${system.metadata.name}`) ?? [],
            }).environments,
          }),
        );
    });
    record(
      'resolveEnvironments, all systems',
      environments.ms,
      `${systemCount} systems`,
    );
    const systems = environments.result;

    const derived = time(() => desiredSlices({ checks, systems }));
    const desired = derived.result.slices;
    record(
      'desiredSlices, all systems',
      derived.ms,
      `${desired.length} slices`,
    );

    const fromEmpty = time(() => planReconcile({ desired, current: [] }));
    record(
      'planReconcile, full from empty',
      fromEmpty.ms,
      `${fromEmpty.result.toSchedule.length} to schedule`,
    );

    const held: HeldSlice[] = desired.map(s => ({
      id: s.id,
      intervalMs: s.intervalMs,
      timeoutMs: s.timeoutMs,
      configHash: s.configHash,
    }));
    const noop = time(() => planReconcile({ desired, current: held }));
    record(
      'planReconcile, full no-op',
      noop.ms,
      `${noop.result.toReschedule.length} to reschedule`,
    );

    // One check of one system edited: a system-scoped pass.
    const editedIndex = Math.floor(systemCount / 2);
    const systemRef = `system:default/system-${editedIndex}`;
    const scoped = time(() => {
      const editedChecks = checks
        .filter(c => c.spec.systems[0] === `system-${editedIndex}`)
        .map(c => ({ ...c, intervalMs: 60_000 }));
      const system = systems.filter(s => s.ref === systemRef);
      const slices = desiredSlices({ checks: editedChecks, systems: system });
      return planReconcile({
        desired: slices.slices,
        current: held,
        scope: { systemRef },
      });
    });
    record(
      'system-scoped pass after one edit',
      scoped.ms,
      `${scoped.result.toReschedule.length} to reschedule`,
    );
  }

  console.log(
    `Reconciler, pure part: ${systemCount} systems x 3 environments x 2 checks; median of ${runs} runs; Node ${
      process.version
    }, ${cpus().length} CPUs\n`,
  );
  console.log(
    `| ${'step'.padEnd(36)} | ${'median ms'.padStart(9)} | ${'max ms'.padStart(
      8,
    )} | note`,
  );
  console.log(`|${'-'.repeat(38)}|${'-'.repeat(11)}|${'-'.repeat(10)}|------`);
  for (const [name, values, note] of rows) {
    console.log(
      `| ${name.padEnd(36)} | ${median(values)
        .toFixed(1)
        .padStart(9)} | ${Math.max(...values)
        .toFixed(1)
        .padStart(8)} | ${note}`,
    );
  }
}

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
