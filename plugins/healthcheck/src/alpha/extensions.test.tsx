import { Entity } from '@backstage/catalog-model';
import { ApiBlueprint } from '@backstage/frontend-plugin-api';
import {
  createExtensionTester,
  mockApis,
  renderInTestApp,
} from '@backstage/frontend-test-utils';
import {
  catalogGraphApiRef,
  DefaultCatalogGraphApi,
} from '@backstage/plugin-catalog-graph';
import {
  catalogApiRef,
  EntityProvider,
  entityRouteRef,
} from '@backstage/plugin-catalog-react';
import {
  EntityCardBlueprint,
  EntityContentBlueprint,
  EntityIconLinkBlueprint,
} from '@backstage/plugin-catalog-react/alpha';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HealthcheckApi, healthcheckApiRef } from '../api/HealthcheckApi';
import { HealthcheckClient } from '../api/HealthcheckClient';
import {
  paymentsApiComponent,
  paymentsHealth,
  paymentsSystem,
} from '../components/HealthStatusBadge/__testUtils__/fixtures';
import { stubSvgLayout } from '../components/HealthDependencyMap/__testUtils__/drawnGraph';
import { rootRouteRef } from '../routes';
import {
  entityHealthBadgeLink,
  entityHealthCard,
  entityHealthContent,
  entityHealthDependencyMapCard,
  entityHealthStatusLink,
  healthcheckApi,
  healthcheckPage,
} from './extensions';

const team: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Group',
  metadata: { name: 'payments-team', namespace: 'default' },
  spec: { type: 'team', children: [] },
};
const outsideAnySystem: Entity = {
  ...paymentsApiComponent,
  metadata: { name: 'lonely-service', namespace: 'default' },
  spec: { type: 'service' },
};

const BADGE_URL =
  'http://localhost:7007/api/healthcheck/v1/badges/systems/default/payments';

const api: Partial<HealthcheckApi> = {
  getSystem: async () => paymentsHealth(),
  listSystems: async () => ({
    items: [paymentsHealth()],
    totalCount: 1,
    counts: { healthy: 0, degraded: 1, unhealthy: 0, unknown: 0, paused: 0 },
  }),
  listChecks: async () => [],
  badgeUrl: async () => BADGE_URL,
};

/** Renders an extension's element on an entity's page, with Vigil's API. */
async function renderOnEntity(element: JSX.Element, entity: Entity) {
  return renderInTestApp(
    <EntityProvider entity={entity}>{element}</EntityProvider>,
    {
      apis: [
        [healthcheckApiRef, api],
        [catalogApiRef, catalogApiMock({ entities: [paymentsSystem] })],
        [catalogGraphApiRef, new DefaultCatalogGraphApi()],
        [permissionApiRef, mockApis.permission()],
      ],
      mountedRoutes: {
        '/healthcheck': rootRouteRef,
        '/catalog/:namespace/:kind/:name': entityRouteRef,
      },
    },
  );
}

/** The entity filter an entity extension was given, as a function. */
function filterOf(tester: { get(ref: any): any }) {
  const filter = tester.get(EntityCardBlueprint.dataRefs.filterFunction);
  if (!filter) throw new Error('the extension has no entity filter');
  return filter as (entity: Entity) => boolean;
}

describe('the new frontend system extensions', () => {
  it('api:healthcheck provides the HTTP client of healthcheckApiRef', () => {
    const factory = createExtensionTester(healthcheckApi).get(
      ApiBlueprint.dataRefs.factory,
    );
    expect(factory.api).toBe(healthcheckApiRef);
    expect(
      factory.factory({
        discoveryApi: mockApis.discovery(),
        fetchApi: { fetch: jest.fn() },
      }),
    ).toBeInstanceOf(HealthcheckClient);
  });

  it('page:healthcheck lists every system at /healthcheck', async () => {
    const tester = createExtensionTester(healthcheckPage);
    await renderInTestApp(tester.reactElement(), {
      apis: [
        [healthcheckApiRef, api],
        [catalogApiRef, catalogApiMock()],
        [permissionApiRef, mockApis.permission()],
      ],
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });
    expect(
      await screen.findByText(
        "Every system's health, per environment, worst first",
      ),
    ).toBeInTheDocument();
    expect(await screen.findByText('Payments')).toBeInTheDocument();
  });

  it('entity-content:healthcheck/health is the Health tab of Systems and Components', async () => {
    const tester = createExtensionTester(entityHealthContent);
    expect(tester.get(EntityContentBlueprint.dataRefs.title)).toBe('Health');
    const appliesTo = filterOf(tester);
    expect(appliesTo(paymentsSystem)).toBe(true);
    expect(appliesTo(paymentsApiComponent)).toBe(true);
    expect(appliesTo(team)).toBe(false);

    // The system's rollup lists no checks.
    await renderOnEntity(tester.reactElement(), paymentsSystem);
    expect(
      await screen.findByText('No health checks for this system yet'),
    ).toBeInTheDocument();
  });

  it("entity-card:healthcheck/health summarises the system's health on entities in a system", async () => {
    const tester = createExtensionTester(entityHealthCard);
    const appliesTo = filterOf(tester);
    expect(appliesTo(paymentsApiComponent)).toBe(true);
    expect(appliesTo(outsideAnySystem)).toBe(false);
    expect(appliesTo(team)).toBe(false);

    await renderOnEntity(tester.reactElement(), paymentsApiComponent);
    expect(
      await screen.findByText('3 of 4 checks healthy'),
    ).toBeInTheDocument();
  });

  it('entity-card:healthcheck/health-dependency-map draws the health on a dependency graph', async () => {
    stubSvgLayout();
    const tester = createExtensionTester(entityHealthDependencyMapCard);
    const appliesTo = filterOf(tester);
    expect(appliesTo(paymentsSystem)).toBe(true);
    expect(appliesTo(team)).toBe(false);

    await renderOnEntity(tester.reactElement(), paymentsSystem);
    expect(await screen.findByText('Dependency health')).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByText('Degraded', { selector: 'text' })).toBeVisible(),
    );
  });

  it("entity-icon-link:healthcheck/health-status shows the system's status, linking to the Health tab", async () => {
    const tester = createExtensionTester(entityHealthStatusLink);
    const appliesTo = filterOf(tester);
    expect(appliesTo(paymentsApiComponent)).toBe(true);
    expect(appliesTo(outsideAnySystem)).toBe(false);

    const useProps = tester.get(EntityIconLinkBlueprint.dataRefs.useProps);
    function Link() {
      const props = useProps();
      return <a href={props.href}>{props.label}</a>;
    }
    await renderOnEntity(<Link />, paymentsApiComponent);
    const link = await screen.findByRole('link', { name: 'Degraded' });
    expect(link).toHaveAttribute('href', 'health');
  });

  it('entity-icon-link:healthcheck/health-badge copies the badge Markdown', async () => {
    const tester = createExtensionTester(entityHealthBadgeLink);
    expect(filterOf(tester)(outsideAnySystem)).toBe(false);

    const useProps = tester.get(EntityIconLinkBlueprint.dataRefs.useProps);
    function Link() {
      const props = useProps();
      // The header renders icon links as links, disabled ones without a target.
      return props.disabled ? (
        <span>{props.label}</span>
      ) : (
        <a href="#copy" onClick={props.onClick}>
          {props.label}
        </a>
      );
    }
    const user = userEvent.setup();
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    await renderInTestApp(
      <EntityProvider entity={paymentsApiComponent}>
        <Link />
      </EntityProvider>,
      { apis: [[healthcheckApiRef, api]] },
    );
    await user.click(await screen.findByRole('link', { name: 'Badge' }));
    expect(writeText).toHaveBeenCalledWith(`![payments health](${BADGE_URL})`);
  });
});
