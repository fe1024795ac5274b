// @ts-check

/**
 * When Vigil could not hear heartbeat pings, so that no instance declares
 * a ping missed that nobody could have heard: spans of time an instance's
 * database was away, or no instance was running; and when each running
 * instance last could hear, from which a starting instance learns how long
 * none was.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_ping_deaf_spans', table => {
    table.comment('Spans of time Vigil could not hear heartbeat pings');
    table.bigIncrements('id').primary();
    table.bigInteger('from_at').notNullable().comment('Epoch ms, inclusive');
    table.bigInteger('to_at').notNullable().comment('Epoch ms, exclusive');
    table
      .string('cause', 16)
      .notNullable()
      .comment(
        'database (an instance could not reach it) or down (no instance ran)',
      );
    table.index(['to_at'], 'healthcheck_ping_deaf_spans_to_idx');
  });
  await knex.schema.createTable('healthcheck_ping_listeners', table => {
    table.comment('When each running instance last could hear pings');
    table.string('instance_id', 255).primary().notNullable();
    table.bigInteger('heard_until').notNullable().comment('Epoch ms');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_ping_listeners');
  await knex.schema.dropTable('healthcheck_ping_deaf_spans');
};
