import { createApp } from '@backstage/frontend-defaults';
import { catalogGraphHealthModule } from '@vigil/plugin-healthcheck/alpha';

/**
 * The demo portal. Plugins are discovered from this package's dependencies
 * (`app.packages: all`), so adding `@vigil/plugin-healthcheck` is one line in
 * package.json; the module colours the stock catalog graph (its page and the
 * entities' Relations card) by health.
 */
export default createApp({ features: [catalogGraphHealthModule] });
