/*
 * The Vigil instance of the probe-cost bench: one backend, in a process of
 * its own (the chaos suite's instance process: the plugin wired as a portal
 * wires it, on PostgreSQL, notifications recorded to a file), probing the
 * bench's target through the whole run path. Its slices are
 * `systems × environments`, made by API checks of 50 systems each.
 */
import type { Entity } from '@backstage/catalog-model';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockCredentials } from '@backstage/backend-test-utils';
import { HEALTHCHECK_SPEC_LIMITS } from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChaosFleet, type ChaosInstance } from '../../src/chaos/ChaosFleet';
import { ChaosApi } from '../../src/chaos/chaosScenarios';
import { readNotifications } from '../../src/chaos/chaosSetup';
import { UP_CONDITIONS, type ProbeTarget } from './probeTarget';

const INSTANCE_NAME = 'probe-cost';
/** Systems per check: what one check may name. */
const SYSTEMS_PER_CHECK = HEALTHCHECK_SPEC_LIMITS.systems;
/** Every slice's first run comes within min(5 s, interval / 2); a margin. */
const FIRST_RUNS_TIMEOUT_MS = 120_000;

export function systemName(index: number): string {
  return `sys-${index}`;
}

export function environmentName(index: number): string {
  return `env-${index}`;
}

function systemEntity(index: number, environments: number): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name: systemName(index),
      namespace: 'default',
      annotations: {
        'vigil.dev/environments': Array.from({ length: environments }, (_, i) =>
          environmentName(i),
        ).join(','),
      },
    },
    spec: { owner: 'group:default/bench-team' },
  };
}

/** A run as the bench reads it: the tick and when its probe started. */
export interface RunTiming {
  scheduledAt: number;
  startedAt: number;
}

export class ProbeCostInstance {
  readonly #fleet: ChaosFleet;
  readonly #instance: ChaosInstance;
  readonly #api = new ChaosApi(mockCredentials.user.header());
  readonly #knex: Knex;
  readonly #target: ProbeTarget;
  readonly #systems: number;
  readonly #outputDir: string;
  /** Check id to its revision, after the last write. */
  readonly #revisions = new Map<string, number>();

  static async start(options: {
    outputDir: string;
    postgresUrl: string;
    databaseName: string;
    knex: Knex;
    target: ProbeTarget;
    systems: number;
    environments: number;
  }): Promise<ProbeCostInstance> {
    const postgres = new URL(options.postgresUrl);
    const entities = Array.from({ length: options.systems }, (_, i) =>
      systemEntity(i, options.environments),
    );
    const fleet = new ChaosFleet({
      logDir: options.outputDir,
      optionsOf: name => ({
        database: {
          client: 'pg',
          connection: {
            host: postgres.hostname,
            port: Number(postgres.port || 5432),
            user: decodeURIComponent(postgres.username) || 'postgres',
            ...(postgres.password
              ? { password: decodeURIComponent(postgres.password) }
              : {}),
          },
          ensureExists: false,
          plugin: {
            healthcheck: { connection: { database: options.databaseName } },
          },
        },
        // Backstage's scheduler keeps its tables in the plugin's database.
        migrate: true,
        notificationsFile: `${options.outputDir}/notifications-${name}.jsonl`,
        entities,
        healthcheck: {
          network: { allowLoopback: true },
          minimumInterval: '1s',
        },
      }),
    });
    const instance = await fleet.start(INSTANCE_NAME);
    return new ProbeCostInstance(fleet, instance, options);
  }

  private constructor(
    fleet: ChaosFleet,
    instance: ChaosInstance,
    options: {
      knex: Knex;
      target: ProbeTarget;
      systems: number;
      outputDir: string;
    },
  ) {
    this.#fleet = fleet;
    this.#instance = instance;
    this.#knex = options.knex;
    this.#target = options.target;
    this.#systems = options.systems;
    this.#outputDir = options.outputDir;
  }

  get pid(): number {
    return this.#instance.pid;
  }

  #checkIds(): string[] {
    return Array.from(
      { length: Math.ceil(this.#systems / SYSTEMS_PER_CHECK) },
      (_, i) => `cost-${i}`,
    );
  }

  #spec(index: number, interval: string, paused: boolean) {
    const first = index * SYSTEMS_PER_CHECK;
    return {
      type: 'http',
      target: this.#target.template(),
      interval,
      timeout: '2s',
      conditions: UP_CONDITIONS,
      paused,
      systems: Array.from(
        { length: Math.min(SYSTEMS_PER_CHECK, this.#systems - first) },
        (_, i) => `system:default/${systemName(first + i)}`,
      ),
    };
  }

  /**
   * Makes the checks, or rewrites them with a new interval or paused, one
   * every `intervalMs / checks`: a new slice's first probe comes within 5 s,
   * and ten thousand of them at once would be a burst of 2,000 probes a
   * second rather than the steady rate the bench measures.
   */
  async writeChecks(intervalMs: number, paused = false): Promise<void> {
    const interval = `${intervalMs}ms`;
    const ids = this.#checkIds();
    const spacingMs = paused ? 0 : intervalMs / ids.length;
    for (const [index, id] of ids.entries()) {
      if (index > 0) {
        await sleep(spacingMs);
      }
      const revision = this.#revisions.get(id);
      const answer =
        revision === undefined
          ? await this.#api.request(this.#instance, 'POST', '/checks', {
              id,
              spec: this.#spec(index, interval, paused),
            })
          : await this.#api.request(this.#instance, 'PUT', `/checks/${id}`, {
              revision,
              spec: this.#spec(index, interval, paused),
            });
      if (answer.status !== 201 && answer.status !== 200) {
        throw new Error(
          `Could not write check ${id}: ${answer.status} ${JSON.stringify(
            answer.body,
          )}`,
        );
      }
      this.#revisions.set(id, answer.body.revision);
    }
  }

  /**
   * Waits until `slices` slices have had a run since `since`, or gives up
   * after a while: the slices that ran, for the bench to say so (a machine
   * too busy for the load shows in every table after).
   */
  async waitForRuns(slices: number, since: number): Promise<number> {
    const deadline = Date.now() + FIRST_RUNS_TIMEOUT_MS;
    for (;;) {
      const [{ ran }] = await this.#knex('healthcheck_runs')
        .countDistinct({ ran: 'slice_id' })
        .where('started_at', '>=', since);
      if (Number(ran) >= slices || Date.now() > deadline) {
        return Number(ran);
      }
      await sleep(1000);
    }
  }

  /**
   * Waits until the newest result written started at most `lagMs` ago:
   * the results of the first runs, and the transitions they make, are
   * written, and results land as they come. Resolves to whether they do.
   */
  async waitForCurrentResults(lagMs: number): Promise<boolean> {
    const deadline = Date.now() + FIRST_RUNS_TIMEOUT_MS;
    for (;;) {
      const [{ newest }] = await this.#knex('healthcheck_runs').max({
        newest: 'started_at',
      });
      if (Number(newest) >= Date.now() - lagMs) {
        return true;
      }
      if (Date.now() > deadline) {
        return false;
      }
      await sleep(500);
    }
  }

  /** The runs whose probes started in [from, to). */
  async runsStartedIn(from: number, to: number): Promise<RunTiming[]> {
    const rows = await this.#knex('healthcheck_runs')
      .select('scheduled_at', 'started_at')
      .where('started_at', '>=', from)
      .andWhere('started_at', '<', to);
    return rows.map(row => ({
      scheduledAt: Number(row.scheduled_at),
      startedAt: Number(row.started_at),
    }));
  }

  /** The runs of ticks due in [from, to) that ran. */
  async runsDueIn(from: number, to: number): Promise<RunTiming[]> {
    const rows = await this.#knex('healthcheck_runs')
      .select('scheduled_at', 'started_at')
      .where('scheduled_at', '>=', from)
      .andWhere('scheduled_at', '<', to)
      .whereNotNull('started_at');
    return rows.map(row => ({
      scheduledAt: Number(row.scheduled_at),
      startedAt: Number(row.started_at),
    }));
  }

  /** The PostgreSQL backends serving the bench's database, by pid. */
  async postgresPids(databaseName: string): Promise<Set<string>> {
    const { rows } = await this.#knex.raw(
      'SELECT pid FROM pg_stat_activity WHERE datname = ?',
      [databaseName],
    );
    return new Set(rows.map((row: { pid: number }) => String(row.pid)));
  }

  /**
   * Transactions committed or rolled back in the bench's database so far
   * (PostgreSQL's statistics, flushed about once a second): each statement
   * the instance sends outside a transaction is one.
   */
  async transactions(databaseName: string): Promise<number> {
    const { rows } = await this.#knex.raw(
      'SELECT xact_commit + xact_rollback AS count FROM pg_stat_database WHERE datname = ?',
      [databaseName],
    );
    return Number(rows[0]?.count ?? NaN);
  }

  /** What the systems route says of one environment of a system. */
  async environmentStatus(
    system: string,
    environment: string,
  ): Promise<string | undefined> {
    const answer = await this.#api.request(
      this.#instance,
      'GET',
      `/systems/default/${system}`,
    );
    return (
      answer.body?.environments as Array<{ name: string; status: string }>
    )?.find(env => env.name === environment)?.status;
  }

  /** When each environment's unhealthy notification was sent, by `system/environment`. */
  unhealthyNotifications(): Map<string, number> {
    const sent = new Map<string, number>();
    for (const notification of readNotifications(this.#outputDir, [
      INSTANCE_NAME,
    ])) {
      const key = `${notification.system}/${notification.environment}`;
      if (notification.kind === 'unhealthy' && !sent.has(key)) {
        sent.set(key, notification.at);
      }
    }
    return sent;
  }

  async stop(): Promise<void> {
    await this.#fleet.stopAll();
  }

  killNow(): void {
    this.#fleet.killAllNow();
  }
}
