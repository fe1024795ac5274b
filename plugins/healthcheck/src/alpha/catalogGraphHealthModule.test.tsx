import { Entity, RELATION_PART_OF } from '@backstage/catalog-model';
import {
  createExtensionTester,
  renderInTestApp,
  renderTestApp,
} from '@backstage/frontend-test-utils';
import catalogGraphPlugin from '@backstage/plugin-catalog-graph/alpha';
import {
  catalogGraphApiRef,
  catalogGraphRouteRef,
  DefaultCatalogGraphApi,
} from '@backstage/plugin-catalog-graph';
import {
  catalogApiRef,
  EntityProvider,
  entityRouteRef,
} from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { screen } from '@testing-library/react';
import { HealthcheckApi, healthcheckApiRef } from '../api/HealthcheckApi';
import { paymentsHealth } from '../components/HealthStatusBadge/__testUtils__/fixtures';
import {
  stubSvgLayout,
  untilDrawn,
} from '../components/HealthDependencyMap/__testUtils__/drawnGraph';
import {
  catalogGraphHealthModule,
  healthCatalogGraphCard,
  healthCatalogGraphPage,
} from './catalogGraphHealthModule';

function entity(kind: string, name: string, relatedTo: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind,
    metadata: { name, namespace: 'default' },
    spec: kind === 'Component' ? { system: 'payments' } : {},
    relations: [{ type: RELATION_PART_OF, targetRef: relatedTo }],
  };
}

// payments-api is part of payments, which is degraded.
const paymentsApi = entity(
  'Component',
  'payments-api',
  'system:default/payments',
);
const entities = [
  paymentsApi,
  entity('System', 'payments', 'component:default/payments-api'),
];

const getSystem = jest.fn(async (systemRef: string) =>
  systemRef === 'system:default/payments' ? paymentsHealth() : undefined,
);

function renderWithApis(element: JSX.Element) {
  const api: Partial<HealthcheckApi> = { getSystem };
  return renderInTestApp(element, {
    apis: [
      [healthcheckApiRef, api],
      [catalogApiRef, catalogApiMock({ entities })],
      [catalogGraphApiRef, new DefaultCatalogGraphApi()],
    ],
    mountedRoutes: {
      '/catalog/:namespace/:kind/:name': entityRouteRef,
      '/catalog-graph': catalogGraphRouteRef,
    },
  });
}

const PAYMENTS_DEGRADED = ['payments-api: Degraded', 'payments: Degraded'];

describe('catalogGraphHealthModule', () => {
  beforeAll(stubSvgLayout);
  beforeEach(() => getSystem.mockClear());

  it("replaces the stock plugin's page in an app: its nodes show health", async () => {
    renderTestApp({
      features: [catalogGraphPlugin, catalogGraphHealthModule],
      initialRouteEntries: [
        `/catalog-graph?rootEntityRefs[]=component:default/payments-api&selectedRelations[]=${RELATION_PART_OF}`,
      ],
      apis: [
        [healthcheckApiRef, { getSystem }],
        [catalogApiRef, catalogApiMock({ entities })],
      ],
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });
    await untilDrawn(nodes => expect(nodes).toEqual(PAYMENTS_DEGRADED));
  });

  it("the Relations card draws each node with its system's health", async () => {
    const tester = createExtensionTester(healthCatalogGraphCard, {
      config: { relations: [RELATION_PART_OF] },
    });
    await renderWithApis(
      <EntityProvider entity={paymentsApi}>
        {tester.reactElement()}
      </EntityProvider>,
    );
    expect(await screen.findByText('Relations')).toBeInTheDocument();
    await untilDrawn(nodes => expect(nodes).toEqual(PAYMENTS_DEGRADED));
    expect(getSystem).toHaveBeenCalledTimes(1);
  });

  it("the Catalog Graph page draws each node with its system's health, configured as the stock page", async () => {
    const tester = createExtensionTester(healthCatalogGraphPage, {
      config: {
        rootEntityRefs: ['component:default/payments-api'],
        selectedRelations: [RELATION_PART_OF],
      },
    });
    await renderWithApis(tester.reactElement());
    await untilDrawn(nodes => expect(nodes).toEqual(PAYMENTS_DEGRADED));
  });
});
