/*
 * One backend instance's probing, in a process of its own, for the
 * multi-instance test: the same createInstanceRunner that plugin.ts starts,
 * on a PostgreSQL database the test prepared.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     probingInstanceProcess.ts <instance id> <database connection JSON>
 *
 * Prints "ready" once it has joined and started; stops cleanly on SIGTERM.
 */
import { ConfigReader } from '@backstage/config';
import knexFactory from 'knex';
import { quietLogger } from '../../tooling/quietLogger';
import { DatabaseSliceStore } from '../../database/DatabaseSliceStore';
import { createInstanceRunner } from '../../runs/createInstanceRunner';
import { builtinProbeTypeRegistry } from '../../__testUtils__/builtinProbeTypeRegistry';

async function main(instanceId: string, connection: string) {
  const config = new ConfigReader({
    healthcheck: {
      network: { allowLoopback: true },
      // Short, so a killed instance's slices move within the test.
      instances: { heartbeatInterval: '500ms', ttl: '2s' },
      scheduler: { refreshInterval: '1s' },
    },
  });
  const logger = quietLogger(instanceId);
  const knex = knexFactory({
    client: 'pg',
    connection: JSON.parse(connection),
    pool: { min: 1, max: 5 },
  });
  const database = {
    getClient: async () => knex,
    migrations: { skip: true },
  };
  const probeTypes = builtinProbeTypeRegistry(config);
  const instance = await createInstanceRunner({
    config,
    logger,
    database,
    slices: new DatabaseSliceStore(knex),
    probeTypes,
    instanceId,
  });
  await instance.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    instance
      .stop()
      .then(() => knex.destroy())
      .then(() => process.exit(0))
      .catch(error => {
        logger.error(String(error));
        process.exit(1);
      });
  });
}

main(process.argv[2], process.argv[3]).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
