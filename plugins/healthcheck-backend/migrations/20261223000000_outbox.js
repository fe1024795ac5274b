// @ts-check

/**
 * The outbox: every side effect people receive (an owner's notification,
 * an event, a live signal, an SLO alert) is written here in the same
 * transaction as the state change that calls for it, and delivered by a
 * dispatcher on whichever instance is alive, retried until the receiver
 * accepts. A row is deleted once delivered; entries of one stream are
 * delivered in the order they were written (only a stream's oldest row is
 * due).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_outbox', table => {
    table.comment('Side effects waiting for delivery, oldest first per stream');
    table.bigIncrements('id').primary().comment('Order of writing');
    table
      .string('stream', 1024)
      .notNullable()
      .comment('Entries of one stream are delivered one at a time, in order');
    table.string('kind', 64).notNullable().comment('What delivers it');
    table.text('payload').notNullable().comment('JSON');
    table.bigInteger('created_at').notNullable().comment('Epoch ms');
    table
      .bigInteger('due_at')
      .notNullable()
      .comment('Epoch ms: not delivered before');
    table.integer('attempts').notNullable().defaultTo(0);
    table.text('last_error').nullable();
    table
      .string('claimed_by', 255)
      .nullable()
      .comment('Instance delivering it');
    table
      .bigInteger('claimed_until')
      .nullable()
      .comment('Epoch ms: the lease; another instance may take it after');
    table.index(['stream', 'id'], 'healthcheck_outbox_stream_idx');
    table.index(['due_at'], 'healthcheck_outbox_due_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_outbox');
};
