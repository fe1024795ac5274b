// @ts-check

/**
 * The desired slices, as the reconciler last wrote them: the one truth every
 * instance's scheduler loads, and the catalog fingerprints that tell a
 * polling pass which systems changed.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('healthcheck_slices', table => {
    table.comment(
      'One row per (check, system, environment) slice the reconciler decided should exist',
    );
    table.string('id', 512).primary().notNullable().comment('The slice id');
    table.string('check_id', 255).notNullable();
    table
      .string('system_ref', 255)
      .notNullable()
      .comment('Canonical (lower-case) system entity ref');
    table.string('environment', 255).notNullable();
    table
      .boolean('paused')
      .notNullable()
      .comment('The check is paused: the slice exists but does not run');
    // A removed slice stays as a tombstone for a while, so instances that
    // read changes since their last revision learn of the removal.
    table.boolean('removed').notNullable();
    table.integer('interval_ms').notNullable();
    table.integer('timeout_ms').notNullable();
    table
      .string('config_hash', 64)
      .notNullable()
      .comment('Hash of everything but timing that shapes a run');
    table
      .text('definition')
      .nullable()
      .comment('The slice as a run needs it (JSON); null while paused');
    table
      .bigInteger('revision')
      .notNullable()
      .comment('The reconcile revision that last wrote the row');
    table.bigInteger('updated_at').notNullable().comment('Epoch ms');
    table.index(['system_ref'], 'healthcheck_slices_system_ref_idx');
    table.index(['revision'], 'healthcheck_slices_revision_idx');
  });

  await knex.schema.createTable('healthcheck_reconcile_state', table => {
    table.comment('Counters of the reconciler, one row per name');
    table.string('name', 64).primary().notNullable();
    table
      .bigInteger('revision')
      .notNullable()
      .comment('Bumped by every reconcile that changed a slice');
    table.bigInteger('updated_at').notNullable().comment('Epoch ms');
  });
  await knex('healthcheck_reconcile_state').insert({
    name: 'slices',
    revision: 0,
    updated_at: Date.now(),
  });

  await knex.schema.createTable('healthcheck_catalog_fingerprints', table => {
    table.comment(
      'Per system, a hash of the catalog etags that shape its slices, as of the last reconcile',
    );
    table.string('system_ref', 255).primary().notNullable();
    table.string('fingerprint', 64).notNullable();
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('healthcheck_catalog_fingerprints');
  await knex.schema.dropTable('healthcheck_reconcile_state');
  await knex.schema.dropTable('healthcheck_slices');
};
