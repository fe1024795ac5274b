// @ts-check

/**
 * Maintenance windows made through the API ("we are deploying now, 30
 * minutes"). Windows declared as code are MaintenanceWindow entities in the
 * catalog, not here.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_maintenance_windows', table => {
    table.comment('Maintenance windows created through the API');
    table.string('id', 64).primary().notNullable().comment('Window id');
    table
      .string('system_ref', 255)
      .notNullable()
      .comment('Canonical ref of the system covered');
    table
      .text('checks')
      .nullable()
      .comment('JSON list of the check ids covered; null for every check');
    table
      .text('environments')
      .nullable()
      .comment('JSON list of the environments covered; null for every one');
    table.bigInteger('starts_at').notNullable().comment('Epoch ms');
    table
      .bigInteger('ends_at')
      .notNullable()
      .comment('Epoch ms; moved to the time of an early end');
    table.text('reason').nullable();
    table.string('created_by', 255).notNullable();
    table.bigInteger('created_at').notNullable().comment('Epoch ms');
    table
      .string('ended_by', 255)
      .nullable()
      .comment('Who ended the window early, if anyone did');
    table.index(['system_ref', 'ends_at'], 'healthcheck_mw_system_ends_idx');
    table.index(['ends_at'], 'healthcheck_mw_ends_idx');
  });
  await knex.schema.createTable(
    'healthcheck_maintenance_held_notifications',
    table => {
      table.comment(
        'Environment transitions whose notification waits for the end of a maintenance window',
      );
      table.string('system_ref', 255).notNullable();
      table.string('environment', 255).notNullable();
      table
        .string('from_status', 32)
        .notNullable()
        .comment('The status before the first held transition');
      table.bigInteger('held_at').notNullable().comment('Epoch ms');
      table
        .bigInteger('release_at')
        .notNullable()
        .comment('Epoch ms: when to look again; moved forward by a claim');
      table.primary(['system_ref', 'environment']);
      table.index(['release_at'], 'healthcheck_mw_held_release_idx');
    },
  );
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_maintenance_held_notifications');
  await knex.schema.dropTable('healthcheck_maintenance_windows');
};
