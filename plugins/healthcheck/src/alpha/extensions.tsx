// The extensions of the new frontend system's plugin (index.tsx wires them).
import {
  ApiBlueprint,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import { Entity } from '@backstage/catalog-model';
import {
  EntityCardBlueprint,
  EntityContentBlueprint,
  EntityIconLinkBlueprint,
} from '@backstage/plugin-catalog-react/alpha';
import { RiFileCopyLine, RiHeartPulseLine } from '@remixicon/react';
import {
  useCopyEntityBadgeMarkdown,
  useEntityHealthIconLink,
} from '../components/HealthStatusBadge';
import { systemRefOfEntity } from '../status';
import { healthcheckApiRef } from '../api/HealthcheckApi';
import { HealthcheckClient } from '../api/HealthcheckClient';
import { rootRouteRef } from '../routes';

export const healthcheckApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: healthcheckApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new HealthcheckClient(deps),
    }),
});

export const healthcheckPage = PageBlueprint.make({
  params: {
    path: '/healthcheck',
    title: 'Health',
    icon: <RiHeartPulseLine />,
    routeRef: rootRouteRef,
    noHeader: true,
    loader: () =>
      import('../components/HealthOverviewPage').then(m => (
        <m.HealthOverviewPage />
      )),
  },
});

/** The Health tab of System and Component entities. */
export const entityHealthContent = EntityContentBlueprint.make({
  name: 'health',
  params: {
    path: 'health',
    title: 'Health',
    filter: { kind: { $in: ['system', 'component'] } },
    loader: () =>
      import('../components/HealthTab').then(m => <m.EntityHealthContent />),
  },
});

const hasSystem = (entity: Entity) => systemRefOfEntity(entity) !== undefined;

/** Badge, k of n healthy and the worst environment, on the overview. */
export const entityHealthCard = EntityCardBlueprint.make({
  name: 'health',
  params: {
    type: 'info',
    filter: hasSystem,
    loader: () =>
      import('../components/HealthOverviewCard').then(m => (
        <m.EntityHealthOverviewCard />
      )),
  },
});

/** The dependency map with each system's health on its nodes. */
export const entityHealthDependencyMapCard = EntityCardBlueprint.make({
  name: 'health-dependency-map',
  params: {
    type: 'content',
    filter: { kind: { $in: ['system', 'component', 'resource'] } },
    loader: () =>
      import('../components/HealthDependencyMap').then(m => (
        <m.HealthDependencyMapCard />
      )),
  },
});

/** The system's status in the entity header's links, to the Health tab. */
export const entityHealthStatusLink = EntityIconLinkBlueprint.make({
  name: 'health-status',
  params: { filter: hasSystem, useProps: useEntityHealthIconLink },
});

/** Copies the badge's Markdown, for a README. */
export const entityHealthBadgeLink = EntityIconLinkBlueprint.make({
  name: 'health-badge',
  params: {
    filter: hasSystem,
    useProps: () => {
      const { copyBadgeMarkdown, ready } = useCopyEntityBadgeMarkdown();
      return {
        label: 'Badge',
        title: 'Copy the health badge as Markdown',
        icon: <RiFileCopyLine />,
        disabled: !ready,
        onClick: () => void copyBadgeMarkdown(),
      };
    },
  },
});
