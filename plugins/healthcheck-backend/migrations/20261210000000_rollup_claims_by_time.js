// @ts-check

/**
 * The sweep reads the rollup claims of the last minutes (to find windows
 * claimed and never computed) and prunes older ones: both by claim time.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('healthcheck_rollup_claims', table => {
    table.index(['claimed_at'], 'healthcheck_rollup_claims_claimed_at_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('healthcheck_rollup_claims', table => {
    table.dropIndex(['claimed_at'], 'healthcheck_rollup_claims_claimed_at_idx');
  });
};
