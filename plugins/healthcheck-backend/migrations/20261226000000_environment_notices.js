// @ts-check

/**
 * What an environment's owner was last told of an outage still under way:
 * the notification's scope (so the recovery, reminders and the flips of one
 * upstream incident update that one notification), and the upstream
 * incident it was put down to. One row per environment with an outage told
 * or held back for an upstream; deleted on recovery and with the
 * environment.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_environment_notices', table => {
    table.comment('The notice of each environment outage under way');
    table.string('system_ref', 512).notNullable();
    table.string('environment', 255).notNullable();
    table
      .string('scope', 1024)
      .nullable()
      .comment('Of the notification told; null while nothing was told');
    table
      .string('upstream_ref', 512)
      .nullable()
      .comment('The upstream system the outage was put down to');
    table
      .bigInteger('upstream_since')
      .nullable()
      .comment('Epoch ms: when that upstream incident began');
    table.bigInteger('at').notNullable().comment('Epoch ms of the outage');
    table.primary(
      ['system_ref', 'environment'],
      'healthcheck_environment_notices_pkey',
    );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_environment_notices');
};
