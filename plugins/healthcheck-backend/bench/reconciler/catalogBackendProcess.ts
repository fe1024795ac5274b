/*
 * The catalog side of `bench:catalog`, in a process of its own so its CPU
 * is measured apart from Vigil's: Backstage's real catalog backend (with
 * Vigil's catalog module for the HealthCheck kind) on PostgreSQL, fed the
 * generated catalog by an entity provider.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     catalogBackendProcess.ts --config app-config.yaml --systems N
 *
 * Started by the bench through `fork`, it talks over the IPC channel:
 * `{ type: 'ready' }` once the backend is up and the catalog handed to the
 * catalog (stitching goes on after; the bench counts it done); on
 * `{ type: 'change', round }` it gives the catalog that round's changed
 * entities and answers `{ type: 'changed', round, entities }` (on
 * `{ type: 'move', system, environment }` the same, for one System given
 * one environment more); on
 * `{ type: 'stop' }` it stops the backend and exits. After
 * `{ type: 'forward-announcements' }` it hands on every change Vigil's
 * catalog module announces on the events service as
 * `{ type: 'announcement', payload }`, standing in for the events bus
 * between two backends.
 */
import { parseArgs } from 'node:util';
// Bench only: the catalog runs here, not in the plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { createBackend } from '@backstage/backend-defaults';
import { createBackendModule } from '@backstage/backend-plugin-api';
import type { Entity } from '@backstage/catalog-model';
import { eventsServiceRef } from '@backstage/plugin-events-node';
import { CATALOG_CHANGES_TOPIC } from '@vigil/plugin-healthcheck-node';
import {
  catalogProcessingExtensionPoint,
  type EntityProvider,
  type EntityProviderConnection,
} from '@backstage/plugin-catalog-node';
import { generatedCatalog, systemEntity } from './generatedCatalog';

/** What the bench sends the catalog process. */
export type CatalogProcessRequest =
  | { type: 'change'; round: number }
  | { type: 'move'; system: number; environment: string }
  | { type: 'forward-announcements' }
  | { type: 'stop' };

/** What the catalog process tells the bench. */
export type CatalogProcessReport =
  | { type: 'ready'; entities: number }
  | { type: 'changed'; round: number; entities: number }
  | { type: 'announcement'; payload: unknown }
  | { type: 'failed'; message: string };

const LOCATION_KEY = 'vigil-catalog-bench';

/** Hands the generated catalog to the catalog, whole or a round's changes. */
class GeneratedCatalogProvider implements EntityProvider {
  #connection: EntityProviderConnection | undefined;
  #connected: () => void = () => {};
  readonly connected = new Promise<void>(resolve => {
    this.#connected = resolve;
  });

  getProviderName(): string {
    return 'vigil-catalog-bench';
  }

  async connect(connection: EntityProviderConnection): Promise<void> {
    this.#connection = connection;
    this.#connected();
  }

  async replaceAll(entities: Entity[]): Promise<void> {
    await this.#connection!.applyMutation({
      type: 'full',
      entities: entities.map(entity => ({
        entity,
        locationKey: LOCATION_KEY,
      })),
    });
  }

  async upsert(entities: Entity[]): Promise<void> {
    await this.#connection!.applyMutation({
      type: 'delta',
      added: entities.map(entity => ({ entity, locationKey: LOCATION_KEY })),
      removed: [],
    });
  }
}

function report(message: CatalogProcessReport) {
  process.send?.(message);
}

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      config: { type: 'string', multiple: true },
      systems: { type: 'string' },
    },
  });
  const systems = Number(values.systems);
  if (!Number.isInteger(systems) || systems < 1) {
    throw new Error(
      `--systems must be a positive integer, not ${values.systems}`,
    );
  }
  const provider = new GeneratedCatalogProvider();
  // Off while seeding: every entity processed is announced.
  let forwarding = false;
  const backend = createBackend();
  // eslint-disable-next-line @backstage/no-undeclared-imports
  backend.add(import('@backstage/plugin-catalog-backend'));
  // eslint-disable-next-line @backstage/no-undeclared-imports
  backend.add(import('@vigil/plugin-catalog-backend-module-healthcheck'));
  backend.add(
    createBackendModule({
      pluginId: 'catalog',
      moduleId: 'vigil-catalog-bench',
      register(reg) {
        reg.registerInit({
          deps: {
            catalog: catalogProcessingExtensionPoint,
            events: eventsServiceRef,
          },
          async init({ catalog, events }) {
            catalog.addEntityProvider(provider);
            await events.subscribe({
              id: 'vigil-catalog-bench-forward',
              topics: [CATALOG_CHANGES_TOPIC],
              onEvent: async ({ eventPayload }) => {
                if (forwarding) {
                  report({ type: 'announcement', payload: eventPayload });
                }
              },
            });
          },
        });
      },
    }),
  );
  await backend.start();
  await provider.connected;
  const entities = generatedCatalog(systems);
  await provider.replaceAll(entities);
  report({ type: 'ready', entities: entities.length });

  process.on('message', (request: CatalogProcessRequest) => {
    if (request.type === 'forward-announcements') {
      forwarding = true;
      return;
    }
    if (request.type === 'stop') {
      backend
        .stop()
        .catch(() => {})
        .finally(() => process.exit(0));
      return;
    }
    const changed =
      request.type === 'move'
        ? [systemEntity(request.system, [request.environment])]
        : generatedCatalog(systems, request.round);
    provider
      .upsert(changed)
      .then(() =>
        report({
          type: 'changed',
          round: request.type === 'move' ? -1 : request.round,
          entities: changed.length,
        }),
      )
      .catch(error => report({ type: 'failed', message: String(error) }));
  });
  // The bench gone, nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
}

main().catch(error => {
  report({ type: 'failed', message: String(error?.stack ?? error) });
  process.exit(1);
});
