// @ts-check

/** The tables a system's read model is made of. */
const TABLES = [
  'healthcheck_rollups',
  'healthcheck_slices',
  'healthcheck_slice_states',
];

/** Transition tables allow one event per trigger. */
const EVENTS = [
  ['INSERT', 'NEW'],
  ['UPDATE', 'NEW'],
  ['DELETE', 'OLD'],
];

/**
 * On PostgreSQL, every statement that writes a system's rollup, its slices
 * or their states tells every listening instance which systems it touched,
 * on the channel `healthcheck_systems_changed` (one ref a line, several
 * notifications when they do not fit in one): the instances keep their
 * in-memory read models of rollups and matrices current from it. A
 * statement-level trigger covers every writer, the sweep and any later one
 * included, and a notification is delivered only if its transaction
 * commits. SQLite runs one instance, which needs no notifications.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  if (knex.client.dialect !== 'postgresql') {
    return;
  }
  // The payload limit is 8000 bytes; refs are sent in chunks under it.
  await knex.raw(`
    CREATE FUNCTION healthcheck_notify_systems_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      ref text;
      payload text := '';
    BEGIN
      FOR ref IN SELECT DISTINCT system_ref FROM changed_rows LOOP
        IF octet_length(payload) + octet_length(ref) + 1 > 7900 THEN
          PERFORM pg_notify('healthcheck_systems_changed', payload);
          payload := '';
        END IF;
        payload := CASE WHEN payload = '' THEN ref ELSE payload || E'\\n' || ref END;
      END LOOP;
      IF payload <> '' THEN
        PERFORM pg_notify('healthcheck_systems_changed', payload);
      END IF;
      RETURN NULL;
    END
    $$`);
  for (const table of TABLES) {
    for (const [event, rows] of EVENTS) {
      await knex.raw(`
        CREATE TRIGGER ${table}_${event.toLowerCase()}_notify
        AFTER ${event} ON ${table}
        REFERENCING ${rows} TABLE AS changed_rows
        FOR EACH STATEMENT
        EXECUTE FUNCTION healthcheck_notify_systems_changed()`);
    }
  }
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  if (knex.client.dialect !== 'postgresql') {
    return;
  }
  for (const table of TABLES) {
    for (const [event] of EVENTS) {
      await knex.raw(
        `DROP TRIGGER IF EXISTS ${table}_${event.toLowerCase()}_notify ON ${table}`,
      );
    }
  }
  await knex.raw(
    'DROP FUNCTION IF EXISTS healthcheck_notify_systems_changed()',
  );
};
