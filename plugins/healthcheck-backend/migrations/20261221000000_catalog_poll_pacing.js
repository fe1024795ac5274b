// @ts-check

/**
 * The catalog poll's pace: how long the last poll took, so whichever
 * instance runs the global poll task next can tell whether the poll's
 * budget allows another yet. Kept on the reconciler's counters, in a row
 * named `catalog-poll` (its `revision` counts the polls, `updated_at` is
 * when the last one started).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('healthcheck_reconcile_state', table => {
    table
      .integer('took_ms')
      .nullable()
      .comment('For the catalog-poll row: how long its last poll took, ms');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex('healthcheck_reconcile_state')
    .where('name', 'catalog-poll')
    .delete();
  await knex.schema.alterTable('healthcheck_reconcile_state', table => {
    table.dropColumn('took_ms');
  });
};
