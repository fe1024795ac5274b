// @ts-check

/**
 * API-managed health checks. GitOps checks live in the catalog, not here.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_checks', table => {
    table.comment('Health checks created through the API');
    table.string('id', 255).primary().notNullable().comment('Check id');
    table.string('title', 255).nullable();
    table.text('spec').notNullable().comment('The check spec as JSON');
    table.string('created_by', 255).notNullable();
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .defaultTo(knex.fn.now());
    table
      .timestamp('updated_at', { useTz: true })
      .notNullable()
      .defaultTo(knex.fn.now());
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_checks');
};
