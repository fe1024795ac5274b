// @ts-check

/**
 * Heartbeat checks: one row per slice of a heartbeat check, with the hash of
 * its ping token (the token itself is shown once and never stored) and the
 * last signals its job sent. Every instance reads a slice's deadline from
 * here, so a ping one instance took is seen by all.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_heartbeats', table => {
    table.comment('Ping tokens and last pings of heartbeat slices');
    table.string('slice_id', 512).primary().notNullable();
    table.string('check_id', 255).notNullable();
    table
      .string('token_hash', 64)
      .notNullable()
      .comment('Hex SHA-256 of the ping token');
    table
      .string('token_hint', 16)
      .notNullable()
      .comment('The last characters of the token, to tell tokens apart');
    table
      .bigInteger('armed_at')
      .notNullable()
      .comment(
        'When the token was made, epoch ms: the first deadline counts from here',
      );
    table
      .bigInteger('last_ping_at')
      .nullable()
      .comment('Last success, epoch ms');
    table
      .bigInteger('last_start_at')
      .nullable()
      .comment('Last start, epoch ms');
    table
      .bigInteger('last_fail_at')
      .nullable()
      .comment('Last failure, epoch ms');
    table
      .integer('last_duration_ms')
      .nullable()
      .comment('From the start before the last success to it');
    table
      .text('last_message')
      .nullable()
      .comment('Redacted body of the last ping');
    table.unique(['token_hash'], {
      indexName: 'healthcheck_heartbeats_token_idx',
    });
    table.index(['check_id'], 'healthcheck_heartbeats_check_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_heartbeats');
};
