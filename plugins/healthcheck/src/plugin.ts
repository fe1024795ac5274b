import {
  createApiFactory,
  createComponentExtension,
  createPlugin,
  createRoutableExtension,
  discoveryApiRef,
  fetchApiRef,
} from '@backstage/core-plugin-api';
import { healthcheckApiRef } from './api/HealthcheckApi';
import { HealthcheckClient } from './api/HealthcheckClient';
import { rootRouteRef } from './routes';
import type { CheckFormProps } from './components/CheckForm/CheckForm';
import type { CheckFormDialogProps } from './components/CheckForm/CheckFormDialog';
import type { HealthDependencyMapCardProps } from './components/HealthDependencyMap/HealthDependencyMapCard';
import type { EntityHealthOverviewCardProps } from './components/HealthOverviewCard/EntityHealthOverviewCard';
import type { CopyBadgeMarkdownButtonProps } from './components/HealthStatusBadge/CopyBadgeMarkdownButton';
import type { EntityHealthStatusBadgeProps } from './components/HealthStatusBadge/EntityHealthStatusBadge';
import type { HealthStatusBadgeProps } from './components/HealthStatusBadge/HealthStatusBadge';
import type { EntityHealthContentProps } from './components/HealthTab/EntityHealthContent';
import {
  NewCheckButton as NewCheckButtonComponent,
  type NewCheckButtonProps,
} from './components/CheckForm/NewCheckButton';
import { HealthLegend as HealthLegendComponent } from './components/HealthDependencyMap/HealthLegend';
import { CopyBadgeMarkdownButton as CopyBadgeMarkdownButtonComponent } from './components/HealthStatusBadge/CopyBadgeMarkdownButton';
import { EntityHealthStatusBadge as EntityHealthStatusBadgeComponent } from './components/HealthStatusBadge/EntityHealthStatusBadge';
import { HealthStatusBadge as HealthStatusBadgeComponent } from './components/HealthStatusBadge/HealthStatusBadge';

/**
 * The health-check plugin for Backstage's legacy frontend system.
 * @public
 */
export const healthcheckPlugin = createPlugin({
  id: 'healthcheck',
  apis: [
    createApiFactory({
      api: healthcheckApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new HealthcheckClient(deps),
    }),
  ],
  routes: { root: rootRouteRef },
});

/**
 * The page listing every health check (legacy frontend system).
 * @public
 */
export const HealthcheckPage: () => JSX.Element = healthcheckPlugin.provide(
  createRoutableExtension({
    name: 'HealthcheckPage',
    component: () =>
      import('./components/HealthOverviewPage').then(m => m.HealthOverviewPage),
    mountPoint: rootRouteRef,
  }),
);

/**
 * The Health tab of System and Component entities (legacy frontend system):
 * `<EntityLayout.Route path="/health" title="Health" if={isHealthTabAvailable}>`.
 * @public
 */
export const EntityHealthContent: (
  props: EntityHealthContentProps,
) => JSX.Element = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'EntityHealthContent',
    component: {
      lazy: () =>
        import('./components/HealthTab').then(m => m.EntityHealthContent),
    },
  }),
);

/**
 * Badge, k of n checks healthy and the worst environment of the entity's
 * system, for entity overview pages (legacy frontend system).
 * @public
 */
export const EntityHealthOverviewCard: (
  props: EntityHealthOverviewCardProps,
) => JSX.Element = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'EntityHealthOverviewCard',
    component: {
      lazy: () =>
        import('./components/HealthOverviewCard').then(
          m => m.EntityHealthOverviewCard,
        ),
    },
  }),
);

/**
 * The current entity's dependencies and parts as a catalog graph whose nodes
 * show each system's health, with a legend (legacy frontend system).
 * @public
 */
export const HealthDependencyMapCard: (
  props: HealthDependencyMapCardProps,
) => JSX.Element = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'HealthDependencyMapCard',
    component: {
      lazy: () =>
        import('./components/HealthDependencyMap').then(
          m => m.HealthDependencyMapCard,
        ),
    },
  }),
);

/**
 * What the health graph's colours and icons mean (legacy frontend system),
 * for a page that draws `HealthEntityNode`s.
 * @public
 */
export const HealthLegend: () => JSX.Element = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'HealthLegend',
    component: { sync: HealthLegendComponent },
  }),
);

/**
 * A system's status as icon and word, its reasons in a tooltip (legacy
 * frontend system).
 * @public
 */
export const HealthStatusBadge: (props: HealthStatusBadgeProps) => JSX.Element =
  healthcheckPlugin.provide(
    createComponentExtension({
      name: 'HealthStatusBadge',
      component: { sync: HealthStatusBadgeComponent },
    }),
  );

/**
 * The live status of the current entity's system (legacy frontend system).
 * @public
 */
export const EntityHealthStatusBadge: (
  props: EntityHealthStatusBadgeProps,
) => JSX.Element | null = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'EntityHealthStatusBadge',
    component: { sync: EntityHealthStatusBadgeComponent },
  }),
);

/**
 * Copies a system's badge as Markdown, for a README (legacy frontend system).
 * @public
 */
export const CopyBadgeMarkdownButton: (
  props: CopyBadgeMarkdownButtonProps,
) => JSX.Element = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'CopyBadgeMarkdownButton',
    component: { sync: CopyBadgeMarkdownButtonComponent },
  }),
);

/**
 * The form of a health check declared in the portal (legacy frontend system).
 * @public
 */
export const CheckForm: (props: CheckFormProps) => JSX.Element =
  healthcheckPlugin.provide(
    createComponentExtension({
      name: 'CheckForm',
      component: {
        lazy: () => import('./components/CheckForm').then(m => m.CheckForm),
      },
    }),
  );

/**
 * The check form in a dialog: to create a check or edit one (legacy frontend
 * system).
 * @public
 */
export const CheckFormDialog: (props: CheckFormDialogProps) => JSX.Element =
  healthcheckPlugin.provide(
    createComponentExtension({
      name: 'CheckFormDialog',
      component: {
        lazy: () =>
          import('./components/CheckForm').then(m => m.CheckFormDialog),
      },
    }),
  );

/**
 * A button that opens the form of a new check, for those allowed to create
 * one (legacy frontend system).
 * @public
 */
export const NewCheckButton: (
  props: NewCheckButtonProps,
) => JSX.Element | null = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'NewCheckButton',
    component: { sync: NewCheckButtonComponent },
  }),
);
