// @ts-check

/**
 * Service-level objectives: which burn-rate conditions of which objective
 * are firing, so each notifies once when it starts and once when it stops,
 * whichever instance evaluates next. One row per firing condition; rows of
 * objectives that left the catalog are pruned by the evaluation.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_slo_alerts', table => {
    table.comment(
      'Firing burn-rate conditions, one row per (objective, severity)',
    );
    table
      .string('objective_ref', 512)
      .notNullable()
      .comment('Canonical ServiceLevelObjective entity ref');
    table.string('severity', 16).notNullable().comment('page or ticket');
    table.bigInteger('since').notNullable().comment('Epoch ms');
    table.primary(['objective_ref', 'severity'], 'healthcheck_slo_alerts_pkey');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_slo_alerts');
};
