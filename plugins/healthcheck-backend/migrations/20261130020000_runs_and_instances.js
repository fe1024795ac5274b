// @ts-check

/**
 * Runs, which double as the claim that makes each tick run once across
 * instances, and the instances that share this database.
 *
 * Instants are epoch milliseconds in bigints: exact and identical on SQLite
 * and PostgreSQL, and `scheduled_at` is the scheduler's grid time as is.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_runs', table => {
    table.comment(
      'One row per (slice, tick): inserted as the claim before probing, completed with the result after',
    );
    table.string('slice_id', 512).notNullable().comment('The slice id');
    table
      .bigInteger('scheduled_at')
      .notNullable()
      .comment('Grid time of the tick, epoch ms');
    table
      .string('claimed_by', 255)
      .notNullable()
      .comment('The instance that claimed the tick');
    table
      .bigInteger('claimed_at')
      .notNullable()
      .comment('When the tick was claimed, epoch ms');
    // Null until the probe finishes; a row that stays so was claimed by an
    // instance that died mid-probe.
    table.bigInteger('started_at').nullable().comment('Probe start, epoch ms');
    table.integer('duration_ms').nullable();
    table.string('outcome', 32).nullable().comment('pass, degraded or fail');
    table.string('status', 32).nullable().comment('Slice status after the run');
    table.text('conditions').nullable().comment('Judged conditions as JSON');
    table.string('error_kind', 64).nullable();
    table.text('error_message').nullable();
    table.string('lane', 32).nullable().comment('Admission lane');
    table
      .integer('timeout_ms')
      .nullable()
      .comment('The timeout the run actually had');
    // The key is the claim (INSERT ... ON CONFLICT DO NOTHING), and its index
    // is also the one for "runs of a slice by time": a second index on the
    // same columns would only slow every claim down.
    table.primary(['slice_id', 'scheduled_at'], 'healthcheck_runs_pkey');
    table.index(['scheduled_at'], 'healthcheck_runs_scheduled_at_idx');
  });

  await knex.schema.createTable('healthcheck_instances', table => {
    table.comment('Backend instances sharing this database, by heartbeat');
    table.string('id', 255).primary().notNullable().comment('Instance id');
    table.bigInteger('started_at').notNullable().comment('Epoch ms');
    table.bigInteger('heartbeat_at').notNullable().comment('Epoch ms');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_instances');
  await knex.schema.dropTable('healthcheck_runs');
};
