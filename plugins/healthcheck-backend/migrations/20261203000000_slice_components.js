// @ts-check

/**
 * Each slice keeps the Components its check targets (`spec.components`), so
 * the system matrix and the notifications can say what an outage affects
 * without reading every check's definition. Paused slices keep them too:
 * they still show in the matrix.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('healthcheck_slices', table => {
    table
      .text('components')
      .nullable()
      .comment(
        'Canonical refs of the Components the check targets (JSON array); null when it names none',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('healthcheck_slices', table => {
    table.dropColumn('components');
  });
};
