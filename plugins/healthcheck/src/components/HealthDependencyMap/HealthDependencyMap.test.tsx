import {
  Entity,
  RELATION_DEPENDENCY_OF,
  RELATION_DEPENDS_ON,
  RELATION_HAS_PART,
  RELATION_PART_OF,
} from '@backstage/catalog-model';
import {
  catalogGraphApiRef,
  catalogGraphRouteRef,
  DefaultCatalogGraphApi,
  EntityCatalogGraphCard,
} from '@backstage/plugin-catalog-graph';
import {
  catalogApiRef,
  EntityProvider,
  entityRouteRef,
} from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen, within } from '@testing-library/react';
import { ReactNode } from 'react';
import {
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import {
  createMockSignalApi,
  paymentsHealth,
  statusChanged,
} from '../HealthStatusBadge/__testUtils__/fixtures';
import { HealthDependencyMapCard } from './HealthDependencyMapCard';
import { HealthEntityNode } from './HealthEntityNode';
import { stubSvgLayout, untilDrawn } from './__testUtils__/drawnGraph';

function entity(
  kind: string,
  name: string,
  spec: Entity['spec'],
  relations: Array<[type: string, targetRef: string]>,
): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind,
    metadata: { name, namespace: 'default' },
    spec,
    relations: relations.map(([type, targetRef]) => ({ type, targetRef })),
  };
}

// payments-api (in payments) depends on auth-api (in auth) and on
// payments-db, a resource outside any system.
const paymentsApi = entity(
  'Component',
  'payments-api',
  { type: 'service', system: 'payments' },
  [
    [RELATION_PART_OF, 'system:default/payments'],
    [RELATION_DEPENDS_ON, 'component:default/auth-api'],
    [RELATION_DEPENDS_ON, 'resource:default/payments-db'],
  ],
);
const catalogEntities = [
  paymentsApi,
  entity('System', 'payments', {}, [
    [RELATION_HAS_PART, 'component:default/payments-api'],
  ]),
  entity('Component', 'auth-api', { type: 'service', system: 'auth' }, [
    [RELATION_PART_OF, 'system:default/auth'],
    [RELATION_DEPENDENCY_OF, 'component:default/payments-api'],
  ]),
  entity('System', 'auth', {}, [
    [RELATION_HAS_PART, 'component:default/auth-api'],
  ]),
  entity('Resource', 'payments-db', { type: 'database' }, [
    [RELATION_DEPENDENCY_OF, 'component:default/payments-api'],
  ]),
];

const authHealth: SystemHealthSummary = paymentsHealth({
  systemRef: 'system:default/auth',
  liveKey: 'live-key-of-auth',
  name: 'auth',
  title: 'Auth',
  status: 'healthy',
  reasons: [],
  healthy: 2,
  total: 2,
});

function systemList(items: SystemHealthSummary[]): SystemListResponse {
  return {
    items,
    totalCount: items.length,
    counts: { healthy: 0, degraded: 0, unhealthy: 0, unknown: 0, paused: 0 },
  };
}

async function renderMap(
  listSystems: HealthcheckApi['listSystems'],
  signalApi = createMockSignalApi(),
  graph: ReactNode = <HealthDependencyMapCard />,
) {
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, { listSystems }],
        [catalogApiRef, catalogApiMock({ entities: catalogEntities })],
        [catalogGraphApiRef, new DefaultCatalogGraphApi()],
        [signalApiRef, signalApi],
      ]}
    >
      <EntityProvider entity={paymentsApi}>{graph}</EntityProvider>
    </TestApiProvider>,
    {
      mountedRoutes: {
        '/catalog/:namespace/:kind/:name': entityRouteRef,
        '/catalog-graph': catalogGraphRouteRef,
      },
    },
  );
}

describe('HealthDependencyMapCard', () => {
  beforeAll(stubSvgLayout);

  it("draws each node with its system's status, fetching all systems once", async () => {
    const listSystems = jest.fn(async () =>
      systemList([paymentsHealth(), authHealth]),
    );
    await renderMap(listSystems);

    await untilDrawn(nodes =>
      expect(nodes).toEqual([
        'auth-api: Healthy',
        'auth: Healthy',
        'payments-api: Degraded',
        'payments-db',
        'payments: Degraded',
      ]),
    );
    expect(listSystems).toHaveBeenCalledTimes(1);
    expect(listSystems).toHaveBeenCalledWith({ limit: 500 });
  });

  it('shows "No checks" for a system the backend does not list', async () => {
    await renderMap(async () => systemList([paymentsHealth()]));
    await untilDrawn(nodes => expect(nodes).toContain('auth: No checks'));
  });

  it('explains every status in a legend, as icon and word', async () => {
    await renderMap(async () => systemList([]));
    const legend = screen.getByRole('list', { name: 'Health legend' });
    const items = within(legend).getAllByRole('listitem');
    expect(items.map(item => item.textContent)).toEqual([
      'Unhealthy',
      'Degraded',
      'Unknown',
      'Healthy',
      'Paused',
      'No checks',
    ]);
    items.forEach(item => expect(item.querySelector('svg')).not.toBeNull());
  });

  it('refetches the health when the backend signals a status change', async () => {
    const signalApi = createMockSignalApi();
    const recovered = paymentsHealth({ status: 'healthy', reasons: [] });
    const listSystems = jest
      .fn<Promise<SystemListResponse>, []>()
      .mockResolvedValueOnce(systemList([paymentsHealth(), authHealth]))
      .mockResolvedValue(systemList([recovered, authHealth]));
    await renderMap(listSystems, signalApi);
    await untilDrawn(nodes => expect(nodes).toContain('payments: Degraded'));

    signalApi.emit(statusChanged(recovered));

    await untilDrawn(nodes => expect(nodes).toContain('payments: Healthy'));
    expect(listSystems).toHaveBeenCalledTimes(2);
  });

  it('ignores the signals of systems it does not list when it lists them all', async () => {
    const signalApi = createMockSignalApi();
    const listSystems = jest
      .fn<Promise<SystemListResponse>, []>()
      .mockResolvedValue(systemList([paymentsHealth(), authHealth]));
    await renderMap(listSystems, signalApi);
    await untilDrawn(nodes => expect(nodes).toContain('payments: Degraded'));

    signalApi.emit({ type: 'SYSTEM_STATUS_CHANGED', liveKey: 'hidden-system' });

    await new Promise(resolve => setTimeout(resolve, 100));
    expect(listSystems).toHaveBeenCalledTimes(1);
  });

  describe('HealthEntityNode, as renderNode of the stock Relations card', () => {
    it('shows each system’s health with nothing around the card, one request for all its nodes', async () => {
      const listSystems = jest.fn(async () =>
        systemList([paymentsHealth(), authHealth]),
      );
      await renderMap(
        listSystems,
        createMockSignalApi(),
        <EntityCatalogGraphCard
          relations={[RELATION_PART_OF, RELATION_DEPENDS_ON]}
          renderNode={HealthEntityNode}
        />,
      );
      await untilDrawn(nodes =>
        expect(nodes).toEqual([
          'auth-api: Healthy',
          'payments-api: Degraded',
          'payments-db',
          'payments: Degraded',
        ]),
      );
      expect(listSystems).toHaveBeenCalledTimes(1);
    });

    it('colours a node’s border by its system’s status: healthy and degraded differ', async () => {
      await renderMap(
        async () => systemList([paymentsHealth(), authHealth]),
        createMockSignalApi(),
        <EntityCatalogGraphCard
          relations={[RELATION_DEPENDS_ON]}
          renderNode={HealthEntityNode}
        />,
      );
      await untilDrawn(nodes => expect(nodes).toContain('auth-api: Healthy'));
      const borderOf = (name: string) =>
        screen
          .getAllByTestId('node')
          .find(node => node.querySelector('text')?.textContent === name)
          ?.querySelector('rect')?.style.stroke;
      expect(borderOf('auth-api')).toBeTruthy();
      expect(borderOf('payments-api')).toBeTruthy();
      expect(borderOf('auth-api')).not.toEqual(borderOf('payments-api'));
      expect(borderOf('payments-db')).toBeFalsy();
    });
  });
});
