import { createFrontendModule } from '@backstage/frontend-plugin-api';
import catalogGraphPlugin from '@backstage/plugin-catalog-graph/alpha';

/**
 * A loader of a stock graph component that draws health-coloured nodes:
 * the stock package and the node renderer load with the page or card.
 */
function loadWithHealthNodes(
  render: (
    graph: typeof import('@backstage/plugin-catalog-graph'),
    renderNode: typeof import('../components/HealthDependencyMap').HealthEntityNode,
  ) => JSX.Element,
) {
  return () =>
    Promise.all([
      import('@backstage/plugin-catalog-graph'),
      import('../components/HealthDependencyMap'),
    ]).then(([graph, health]) => render(graph, health.HealthEntityNode));
}

/**
 * The stock Catalog Graph page, its nodes showing their systems' health.
 * Its configuration is the stock page's (`app.extensions` of
 * `page:catalog-graph`).
 */
export const healthCatalogGraphPage = catalogGraphPlugin
  .getExtension('page:catalog-graph')
  .override({
    factory(originalFactory, { config }) {
      return originalFactory({
        params: {
          loader: loadWithHealthNodes((graph, renderNode) => (
            <graph.CatalogGraphPage
              {...config}
              initialState={config}
              renderNode={renderNode}
            />
          )),
        },
      });
    },
  });

/**
 * The stock Relations card of entity pages, its nodes showing their systems'
 * health. Its configuration is the stock card's
 * (`entity-card:catalog-graph/relations`).
 */
export const healthCatalogGraphCard = catalogGraphPlugin
  .getExtension('entity-card:catalog-graph/relations')
  .override({
    factory(originalFactory, { config }) {
      return originalFactory({
        params: {
          loader: loadWithHealthNodes((graph, renderNode) => (
            <graph.EntityCatalogGraphCard {...config} renderNode={renderNode} />
          )),
        },
      });
    },
  });

/**
 * Colours the nodes of the stock catalog graph (`@backstage/plugin-catalog-graph`)
 * by health, in the new frontend system: its Catalog Graph page and the
 * entity Relations card draw `HealthEntityNode`s, kept live. Add it to
 * the app's features: `createApp({ features: [catalogGraphHealthModule] })`.
 * @alpha
 */
export const catalogGraphHealthModule = createFrontendModule({
  pluginId: 'catalog-graph',
  extensions: [healthCatalogGraphPage, healthCatalogGraphCard],
});
