// @ts-check

/**
 * Random keys of the deployment, made once and shared by every backend
 * instance through the database: the key of the opaque `liveKey`s that
 * status signals carry instead of system refs.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_deployment_keys', table => {
    table.comment(
      'Random keys of this deployment, shared by all its backend instances; never returned by the API',
    );
    table
      .string('name', 64)
      .primary()
      .notNullable()
      .comment('What the key is for, such as live-keys');
    table.text('key').notNullable().comment('The key, base64');
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .defaultTo(knex.fn.now());
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_deployment_keys');
};
