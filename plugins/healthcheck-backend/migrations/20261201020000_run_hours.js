// @ts-check

/**
 * History: hourly aggregates of the runs of each slice, kept longer than the
 * raw runs, and how far aggregation has got.
 *
 * Hours are epoch milliseconds in bigints, multiples of 3,600,000 (UTC).
 * Times are seconds (double precision: milliseconds / 1000), latencies whole
 * milliseconds. Nothing here adds an index to `healthcheck_runs`: history
 * reads runs by its primary key (slice_id, scheduled_at) and prunes them by
 * its scheduled_at index, so writing runs costs no more than before.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_run_hours', table => {
    table.comment(
      'One row per (slice, hour): run count, failures, latency and time-weighted up-time',
    );
    table.string('slice_id', 512).notNullable().comment('The slice id');
    table
      .bigInteger('hour_start')
      .notNullable()
      .comment('Start of the hour, epoch ms, a multiple of 3600000');
    table
      .string('system_ref', 255)
      .notNullable()
      .comment('Canonical (lower-case) system entity ref');
    table.string('environment', 255).notNullable();
    table
      .integer('run_count')
      .notNullable()
      .comment('Runs that started in the hour (pause markers are not runs)');
    table
      .integer('failure_count')
      .notNullable()
      .comment('Of them, runs whose outcome was fail');
    table
      .integer('latency_p50_ms')
      .nullable()
      .comment('Nearest-rank percentile of duration_ms; null without runs');
    table.integer('latency_p95_ms').nullable();
    table.integer('latency_p99_ms').nullable();
    table
      .double('up_seconds')
      .notNullable()
      .comment('Time healthy or degraded, seconds');
    table
      .double('down_seconds')
      .notNullable()
      .comment('Time unhealthy, seconds');
    table
      .double('unknown_seconds')
      .notNullable()
      .comment('Time with no known status, seconds');
    table
      .double('paused_seconds')
      .notNullable()
      .comment('Time paused (left out of up-time), seconds');
    table
      .string('end_status', 32)
      .nullable()
      .comment('Status in force at the end of the hour, carried into the next');
    table.primary(['slice_id', 'hour_start'], 'healthcheck_run_hours_pkey');
    // For pruning in bounded chunks, oldest first.
    table.index(['hour_start'], 'healthcheck_run_hours_hour_start_idx');
  });

  // Every read (up-time, response time, hours of a system) is a range of
  // hours of one system, maybe of one environment. On PostgreSQL the index
  // carries the numbers too, so a read of 30 days is an index-only scan of
  // one contiguous range instead of one heap page per row.
  if (knex.client.dialect === 'postgresql') {
    await knex.raw(
      `CREATE INDEX healthcheck_run_hours_system_idx
         ON healthcheck_run_hours (system_ref, environment, hour_start)
         INCLUDE (run_count, failure_count, latency_p50_ms, latency_p95_ms,
                  up_seconds, down_seconds, unknown_seconds, paused_seconds)`,
    );
  } else {
    await knex.schema.alterTable('healthcheck_run_hours', table => {
      table.index(
        ['system_ref', 'environment', 'hour_start'],
        'healthcheck_run_hours_system_idx',
      );
    });
  }

  await knex.schema.createTable('healthcheck_history_state', table => {
    table.comment('Progress of history maintenance, one row per name');
    table.string('name', 64).primary().notNullable();
    table
      .bigInteger('value')
      .notNullable()
      .comment(
        'aggregated_until: every hour before this (epoch ms) is aggregated',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_history_state');
  await knex.schema.dropTable('healthcheck_run_hours');
};
