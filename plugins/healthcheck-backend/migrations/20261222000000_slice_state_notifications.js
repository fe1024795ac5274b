// @ts-check

/** Payloads stay under PostgreSQL's limit of 8000 bytes a notification. */
const PAYLOAD_BYTES = 7900;

/**
 * Makes the insert and update triggers of the slice states run `fn`.
 *
 * @param {import('knex').Knex} knex
 * @param {string} fn
 */
async function pointStateTriggersAt(knex, fn) {
  for (const event of ['INSERT', 'UPDATE']) {
    const trigger = `healthcheck_slice_states_${event.toLowerCase()}_notify`;
    await knex.raw(
      `DROP TRIGGER IF EXISTS ${trigger} ON healthcheck_slice_states`,
    );
    await knex.raw(`
      CREATE TRIGGER ${trigger}
      AFTER ${event} ON healthcheck_slice_states
      REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT
      EXECUTE FUNCTION ${fn}()`);
  }
}

/**
 * On PostgreSQL, a statement that inserts or updates slice states tells
 * the listening instances the states themselves, on the channel
 * `healthcheck_slice_states_changed` (one row a line, as `row_to_json`
 * writes it, over as many notifications as they need), instead of naming
 * their systems on `healthcheck_systems_changed`. The read models patch
 * the slices they hold from it and read nothing: named by system, every
 * run of a slice made every instance read its whole system again, ten
 * rows or more a probe. A state too long to travel (a long reason) names
 * its system as before, and deleting states still names their systems.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  if (knex.client.dialect !== 'postgresql') {
    return;
  }
  await knex.raw(`
    CREATE FUNCTION healthcheck_notify_slice_states_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
      line text;
      ref text;
      payload text := '';
    BEGIN
      FOR line, ref IN
        SELECT row_to_json(changed)::text, changed.system_ref
        FROM changed_rows AS changed
      LOOP
        IF octet_length(line) > ${PAYLOAD_BYTES} THEN
          PERFORM pg_notify('healthcheck_systems_changed', ref);
          CONTINUE;
        END IF;
        IF octet_length(payload) + octet_length(line) + 1 > ${PAYLOAD_BYTES} THEN
          PERFORM pg_notify('healthcheck_slice_states_changed', payload);
          payload := '';
        END IF;
        payload := CASE WHEN payload = '' THEN line ELSE payload || E'\\n' || line END;
      END LOOP;
      IF payload <> '' THEN
        PERFORM pg_notify('healthcheck_slice_states_changed', payload);
      END IF;
      RETURN NULL;
    END
    $$`);
  await pointStateTriggersAt(knex, 'healthcheck_notify_slice_states_changed');
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  if (knex.client.dialect !== 'postgresql') {
    return;
  }
  await pointStateTriggersAt(knex, 'healthcheck_notify_systems_changed');
  await knex.raw(
    'DROP FUNCTION IF EXISTS healthcheck_notify_slice_states_changed()',
  );
};
