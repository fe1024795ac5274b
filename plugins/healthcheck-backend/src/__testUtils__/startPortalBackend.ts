import {
  BackendFeature,
  BackstageCredentials,
  coreServices,
  createBackendModule,
  createServiceFactory,
  HttpAuthService,
} from '@backstage/backend-plugin-api';
import { permissionsServiceFactory } from '@backstage/backend-defaults/permissions';
import { schedulerServiceFactory } from '@backstage/backend-defaults/scheduler';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import catalogPlugin from '@backstage/plugin-catalog-backend';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import {
  DefaultEventsService,
  eventsServiceRef,
} from '@backstage/plugin-events-node';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import permissionPlugin from '@backstage/plugin-permission-backend';
import type { PermissionPolicy } from '@backstage/plugin-permission-node';
import { policyExtensionPoint } from '@backstage/plugin-permission-node/alpha';
import type { Knex } from 'knex';
import type { Server } from 'node:http';
import catalogModuleHealthCheckEntityModel from '@vigil/plugin-catalog-backend-module-healthcheck';
import { healthcheckPlugin } from '../plugin';

/**
 * What {@link startPortalBackend} starts.
 * @internal
 */
export interface PortalBackend {
  server: Server;
  /** Every entity the catalog holds, read as the backend itself. */
  listEntities(): Promise<Entity[]>;
  /** The catalog's processing errors, by entity ref (lower case). */
  processingErrors(): Promise<Map<string, string[]>>;
  /** The database of a plugin (`healthcheck`, `catalog`). */
  databaseOf(pluginId: string): Promise<Knex>;
  stop(): Promise<void>;
}

const MOCK_ON_BEHALF_OF_PREFIX = 'Bearer mock-service-token:';

/**
 * A portal as a platform team runs one, in this process: Backstage's real
 * catalog backend ingesting a catalog file through Vigil's catalog module,
 * the real permission framework with the given policy, and the health-check
 * plugin, each plugin on its own database of the given engine. Unlike the
 * mocked catalog of the unit tests, what the catalog hides from a caller is
 * hidden by the catalog's own rules under the policy.
 *
 * Callers authenticate with `mockCredentials.user.header(ref)`; `memberships`
 * says which groups each user is in, for ownership rules.
 * @internal
 */
export async function startPortalBackend(options: {
  /** Absolute path of a catalog file (entities or a `Location`). */
  catalogFile: string;
  databases: TestDatabases;
  databaseId: TestDatabaseId;
  /** The permission policy; every request is allowed without one. */
  policy?: PermissionPolicy;
  /** The groups each user is a member of (`group:default/x`). */
  memberships?: Record<string, string[]>;
  /** Merged over the config (`healthcheck`, `catalog` and the like). */
  config?: JsonObject;
  features?: BackendFeature[];
}): Promise<PortalBackend> {
  const memberships = options.memberships ?? {};
  const policy: PermissionPolicy = options.policy ?? {
    handle: async () => ({ result: AuthorizeResult.ALLOW }),
  };
  // Each plugin its own database, as in production: the catalog and this
  // plugin both keep their migrations in knex's default table.
  const clients = new Map<string, Promise<Knex>>();
  const databaseOf = (pluginId: string) => {
    let client = clients.get(pluginId);
    if (!client) {
      client = options.databases.init(options.databaseId);
      clients.set(pluginId, client);
    }
    return client;
  };
  let readCatalog: (() => Promise<Entity[]>) | undefined;

  const backend = await startTestBackend({
    features: [
      catalogPlugin,
      catalogModuleHealthCheckEntityModel,
      permissionPlugin,
      createBackendModule({
        pluginId: 'permission',
        moduleId: 'test-policy',
        register(reg) {
          reg.registerInit({
            deps: { policies: policyExtensionPoint },
            async init({ policies }) {
              policies.setPolicy(policy);
            },
          });
        },
      }),
      healthcheckPlugin,
      createBackendModule({
        pluginId: 'healthcheck',
        moduleId: 'test-catalog-reader',
        register(reg) {
          reg.registerInit({
            deps: { catalog: catalogServiceRef, auth: coreServices.auth },
            async init({ catalog, auth }) {
              readCatalog = async () =>
                (
                  await catalog.getEntities(
                    {},
                    { credentials: await auth.getOwnServiceCredentials() },
                  )
                ).items;
            },
          });
        },
      }),
      permissionsServiceFactory,
      // Tasks run on their schedules (the mock runs each once), so the
      // catalog's polling and the reconciler's passes happen as in a portal.
      schedulerServiceFactory,
      createServiceFactory({
        service: coreServices.database,
        deps: { plugin: coreServices.pluginMetadata },
        factory: ({ plugin }) => ({
          getClient: () => databaseOf(plugin.getId()),
        }),
      }),
      createServiceFactory({
        service: coreServices.httpAuth,
        deps: { plugin: coreServices.pluginMetadata },
        factory: ({ plugin }) =>
          onBehalfOfWithActor(
            mockServices.httpAuth({ pluginId: plugin.getId() }),
          ),
      }),
      createServiceFactory({
        service: coreServices.userInfo,
        deps: {},
        factory: () => ({
          async getUserInfo(credentials: BackstageCredentials) {
            const { principal } = credentials as BackstageCredentials<{
              type: string;
              userEntityRef?: string;
            }>;
            if (principal.type !== 'user' || !principal.userEntityRef) {
              throw new Error('User info is only for users');
            }
            const userEntityRef = principal.userEntityRef;
            return {
              userEntityRef,
              ownershipEntityRefs: [
                userEntityRef,
                ...(memberships[userEntityRef] ?? []),
              ],
            };
          },
        }),
      }),
      // Backstage's own events service, one bus for every plugin (the mock
      // gives each plugin a bus of its own): the catalog module's change
      // announcements reach the health-check plugin as in a portal. Without
      // the shutdown hook of the real factory, so the catalog's processing
      // loop may still publish its errors while the test backend stops.
      createServiceFactory({
        service: eventsServiceRef,
        deps: {
          pluginMetadata: coreServices.pluginMetadata,
          rootLogger: coreServices.rootLogger,
        },
        async createRootContext({ rootLogger }) {
          return DefaultEventsService.create({
            logger: rootLogger,
            useEventBus: 'never',
          });
        },
        async factory({ pluginMetadata }, events) {
          return events.forPlugin(pluginMetadata.getId());
        },
      }),
      mockServices.rootConfig.factory({
        data: {
          permission: { enabled: true },
          catalog: {
            processingInterval: { seconds: 1 },
            rules: [
              {
                allow: [
                  'Component',
                  'System',
                  'Resource',
                  'Group',
                  'User',
                  'Location',
                  'HealthCheck',
                  'MaintenanceWindow',
                  'ServiceLevelObjective',
                ],
              },
            ],
            locations: [{ type: 'file', target: options.catalogFile }],
          },
          ...options.config,
        },
      }),
      ...(options.features ?? []),
    ],
  });

  return {
    server: backend.server,
    listEntities: () => readCatalog!(),
    async processingErrors() {
      const catalogDb = await databaseOf('catalog');
      const rows: Array<{ entity_ref: string; errors: string | null }> =
        await catalogDb('refresh_state').select('entity_ref', 'errors');
      const errors = new Map<string, string[]>();
      for (const row of rows) {
        const list = JSON.parse(row.errors || '[]') as Array<{
          message: string;
        }>;
        if (list.length > 0) {
          errors.set(
            row.entity_ref,
            list.map(error => error.message),
          );
        }
      }
      return errors;
    },
    databaseOf,
    stop: () => backend.stop(),
  };
}

/**
 * The mock credentials of a plugin's call on behalf of a user name no
 * calling plugin (actor), so the permission backend would take the call for
 * the user's own and refuse its resource permissions, as it does for
 * browsers. Here such a call carries an actor, as real tokens do.
 */
function onBehalfOfWithActor(mock: HttpAuthService): HttpAuthService {
  const credentials: HttpAuthService['credentials'] = async (
    req,
    authOptions,
  ) => {
    const found = await mock.credentials(req, authOptions as any);
    const { principal } = found as BackstageCredentials<{
      type: string;
      userEntityRef?: string;
    }>;
    const onBehalf = req.headers.authorization?.startsWith(
      MOCK_ON_BEHALF_OF_PREFIX,
    );
    if (onBehalf && principal.type === 'user' && principal.userEntityRef) {
      return mockCredentials.user(principal.userEntityRef, {
        actor: { subject: 'plugin:calling-plugin' },
      }) as any;
    }
    return found;
  };
  return {
    credentials,
    issueUserCookie: (res, cookieOptions) =>
      mock.issueUserCookie(res, cookieOptions),
  };
}
