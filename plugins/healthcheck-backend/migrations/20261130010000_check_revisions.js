// @ts-check

/**
 * Revisions and authors of changes to API-managed checks. `revision` counts
 * the versions of a check (1 when created) so an update can say which one it
 * read and lose no one else's change (optimistic concurrency).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('healthcheck_checks', table => {
    table
      .integer('revision')
      .notNullable()
      .defaultTo(1)
      .comment('1 when created, one more on every update');
    table
      .string('updated_by', 255)
      .nullable()
      .comment('Who made the latest change');
  });
  await knex('healthcheck_checks').update({
    updated_by: knex.ref('created_by'),
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('healthcheck_checks', table => {
    table.dropColumn('revision');
    table.dropColumn('updated_by');
  });
};
