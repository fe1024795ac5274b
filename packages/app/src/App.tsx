import { createApp } from '@backstage/frontend-defaults';

/**
 * The demo portal. Plugins are discovered from this package's dependencies
 * (`app.packages: all`), so adding `@vigil/plugin-healthcheck` is one line in
 * package.json.
 */
export default createApp();
