// @ts-check

/**
 * The durable health state every instance reads: each slice's judged state,
 * each environment's status, each system's rollup, and the debounce claims
 * that make one rollup recompute per system per window across instances.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_slice_states', table => {
    table.comment('The judged state of each slice, after its latest run');
    table.string('slice_id', 512).primary().notNullable();
    table.string('check_id', 255).notNullable();
    table.string('system_ref', 255).notNullable().comment('Lower-case ref');
    table.string('environment', 255).notNullable();
    table.string('status', 32).notNullable();
    table.integer('consecutive_failures').notNullable();
    table.integer('consecutive_successes').notNullable();
    table.bigInteger('since').notNullable().comment('Status since, epoch ms');
    table.string('last_outcome', 32).nullable();
    table
      .bigInteger('last_scheduled_at')
      .notNullable()
      .comment('Grid time of the run this state follows; newer wins');
    table.bigInteger('last_run_at').notNullable().comment('Epoch ms');
    table.integer('last_duration_ms').nullable();
    table
      .text('last_reason')
      .nullable()
      .comment('First failing condition or the probe error, as displayed');
    table.index(
      ['system_ref', 'environment'],
      'healthcheck_slice_states_system_idx',
    );
  });

  await knex.schema.createTable('healthcheck_environment_states', table => {
    table.comment('Status of each environment of each system');
    table.string('system_ref', 255).notNullable();
    table.string('environment', 255).notNullable();
    table.string('status', 32).notNullable();
    table.bigInteger('since').notNullable().comment('Epoch ms');
    table.primary(
      ['system_ref', 'environment'],
      'healthcheck_environment_states_pkey',
    );
  });

  await knex.schema.createTable('healthcheck_rollups', table => {
    table.comment('The rollup of each system, as badges and pages read it');
    table.string('system_ref', 255).primary().notNullable();
    table.string('status', 32).notNullable();
    table.text('rollup').notNullable().comment('SystemRollup as JSON');
    table.bigInteger('since').notNullable().comment('Status since, epoch ms');
    table
      .bigInteger('computed_at')
      .notNullable()
      .comment('Epoch ms; an older computation never replaces a newer one');
    table.index(['status'], 'healthcheck_rollups_status_idx');
  });

  await knex.schema.createTable('healthcheck_rollup_claims', table => {
    table.comment(
      'Debounce: healthrollup:<system>:<bucket> ids, claimed by the instance that recomputes',
    );
    table.string('id', 600).primary().notNullable();
    table.string('claimed_by', 255).notNullable();
    table.bigInteger('claimed_at').notNullable().comment('Epoch ms');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_rollup_claims');
  await knex.schema.dropTable('healthcheck_rollups');
  await knex.schema.dropTable('healthcheck_environment_states');
  await knex.schema.dropTable('healthcheck_slice_states');
};
