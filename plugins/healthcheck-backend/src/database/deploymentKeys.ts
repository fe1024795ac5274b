import { randomBytes } from 'node:crypto';
import type { DatabaseService } from '@backstage/backend-plugin-api';
import { migratedClient } from './migrations';

const TABLE = 'healthcheck_deployment_keys';

/** Bytes of a new key: as long as the SHA-256 HMACs it keys. */
const KEY_BYTES = 32;

/**
 * What a deployment key is for.
 * @internal
 */
export type DeploymentKeyName = 'live-keys';

/**
 * The deployment's key of that name: random, made by whichever instance
 * asks first and read by every other, so all instances of a deployment
 * agree on it and it survives restarts. Insert-if-absent, then read: two
 * instances that start at once both read the one that was inserted.
 * @internal
 */
export async function readDeploymentKey(
  database: DatabaseService,
  name: DeploymentKeyName,
): Promise<Buffer> {
  const db = await migratedClient(database);
  await db(TABLE)
    .insert({ name, key: randomBytes(KEY_BYTES).toString('base64') })
    .onConflict('name')
    .ignore();
  const row: { key: string } | undefined = await db(TABLE)
    .where({ name })
    .first('key');
  if (!row) {
    throw new Error(
      `The deployment key '${name}' was neither found nor created in ${TABLE}`,
    );
  }
  return Buffer.from(row.key, 'base64');
}
