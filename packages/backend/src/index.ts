/*
 * The Vigil demo backend: only the plugins that Vigil reads from or talks through.
 */
import { createBackend } from '@backstage/backend-defaults';
import { permissionPolicyModule } from './modules/permissionPolicy';

const backend = createBackend();

backend.add(import('@backstage/plugin-app-backend'));

backend.add(import('@backstage/plugin-auth-backend'));
backend.add(import('@backstage/plugin-auth-backend-module-guest-provider'));

backend.add(import('@backstage/plugin-catalog-backend'));
backend.add(import('@vigil/plugin-catalog-backend-module-healthcheck'));
// Logs each catalog processing error as a warning, such as a configured
// location file that does not exist, which otherwise only shows as an empty
// catalog.
backend.add(import('@backstage/plugin-catalog-backend-module-logs'));

backend.add(import('@backstage/plugin-events-backend'));
backend.add(import('@backstage/plugin-signals-backend'));
backend.add(import('@backstage/plugin-notifications-backend'));

backend.add(import('@backstage/plugin-permission-backend'));
backend.add(permissionPolicyModule);

backend.add(import('@vigil/plugin-healthcheck-backend'));
// Offers agents the actions of the plugins in `backend.actions.pluginSources`
// (Vigil's) as MCP tools, at /api/mcp-actions/v1.
backend.add(import('@backstage/plugin-mcp-actions-backend'));

backend.start();
