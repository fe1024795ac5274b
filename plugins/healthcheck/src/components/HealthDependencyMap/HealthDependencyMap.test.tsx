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
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import userEvent from '@testing-library/user-event';
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

const authHealth: SystemHealthDetails = paymentsHealth({
  systemRef: 'system:default/auth',
  liveKey: 'live-key-of-auth',
  name: 'auth',
  title: 'Auth',
  status: 'healthy',
  reasons: [],
  healthy: 2,
  total: 2,
});

/** The card's nodes of payments-api when both systems have loaded. */
const EVERY_NODE_WITH_HEALTH = [
  'auth-api: Healthy',
  'auth: Healthy',
  'payments-api: Degraded',
  'payments-db',
  'payments: Degraded',
];

/** A getSystem that answers from these rollups; others have no checks. */
function healthOf(...rollups: SystemHealthDetails[]) {
  return jest.fn(async (systemRef: string) =>
    rollups.find(rollup => rollup.systemRef === systemRef),
  );
}

async function renderMap(
  getSystem: HealthcheckApi['getSystem'],
  signalApi = createMockSignalApi(),
  graph: ReactNode = <HealthDependencyMapCard />,
) {
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, { getSystem }],
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

  it("draws each node with its system's status, asking once for each system shown", async () => {
    const getSystem = healthOf(paymentsHealth(), authHealth);
    await renderMap(getSystem);

    await untilDrawn(nodes => expect(nodes).toEqual(EVERY_NODE_WITH_HEALTH));
    expect(getSystem.mock.calls.map(([ref]) => ref).sort()).toEqual([
      'system:default/auth',
      'system:default/payments',
    ]);
  });

  it('shows "No checks" for a system the backend does not know', async () => {
    await renderMap(healthOf(paymentsHealth()));
    await untilDrawn(nodes => expect(nodes).toContain('auth: No checks'));
  });

  it('explains every status in a legend, as icon and word', async () => {
    await renderMap(healthOf());
    const legend = screen.getByRole('list', { name: 'Health legend' });
    const items = within(legend).getAllByRole('listitem');
    expect(items.map(item => item.textContent)).toEqual([
      'Unhealthy',
      'Degraded',
      'Unknown',
      'Healthy',
      'Paused',
      'No checks',
      'In maintenance: dashed border',
    ]);
    items.forEach(item => expect(item.querySelector('svg')).not.toBeNull());
  });

  it('marks a system in maintenance in words and with a dashed border, its colour unchanged', async () => {
    const inMaintenance = paymentsHealth({
      maintenance: {
        current: [
          {
            windowId: 'w-deploy',
            start: '2026-01-01T10:00:00.000Z',
            end: '2026-01-01T11:00:00.000Z',
          },
        ],
        inMaintenance: [],
      },
    });
    await renderMap(
      healthOf(inMaintenance, authHealth),
      createMockSignalApi(),
      <EntityCatalogGraphCard
        relations={[RELATION_DEPENDS_ON]}
        renderNode={HealthEntityNode}
      />,
    );
    await untilDrawn(nodes =>
      expect(nodes).toEqual([
        'auth-api: Healthy',
        'payments-api: Degraded · in maintenance',
        'payments-db',
      ]),
    );
    const rectOf = (name: string) =>
      screen
        .getAllByTestId('node')
        .find(node => node.querySelector('text')?.textContent === name)!
        .querySelector('rect')!;
    expect(rectOf('payments-api')).toHaveAttribute('stroke-dasharray');
    expect(rectOf('auth-api')).not.toHaveAttribute('stroke-dasharray');
    // The colour of degraded, as without maintenance.
    expect(rectOf('payments-api').style.stroke).toBeTruthy();
    expect(rectOf('payments-api').style.stroke).not.toEqual(
      rectOf('auth-api').style.stroke,
    );
  });

  it('says when some health could not be loaded, and retries those', async () => {
    const getSystem = jest
      .fn<Promise<SystemHealthDetails | undefined>, [string]>()
      .mockImplementation(async ref =>
        ref === 'system:default/auth' ? authHealth : paymentsHealth(),
      )
      .mockImplementationOnce(async () => {
        throw new Error('database unreachable');
      });
    await renderMap(getSystem);
    expect(
      await screen.findByText(
        'Could not load the health of some systems; their nodes show none.',
      ),
    ).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));

    await untilDrawn(nodes => expect(nodes).toEqual(EVERY_NODE_WITH_HEALTH));
    expect(
      screen.queryByText(
        'Could not load the health of some systems; their nodes show none.',
      ),
    ).not.toBeInTheDocument();
  });

  it('reloads a system when the backend signals its status changed', async () => {
    const signalApi = createMockSignalApi();
    const recovered = paymentsHealth({ status: 'healthy', reasons: [] });
    const getSystem = jest
      .fn<Promise<SystemHealthDetails | undefined>, [string]>()
      .mockImplementation(async ref =>
        ref === 'system:default/auth' ? authHealth : paymentsHealth(),
      );
    await renderMap(getSystem, signalApi);
    await untilDrawn(nodes => expect(nodes).toContain('payments: Degraded'));

    getSystem.mockImplementation(async ref =>
      ref === 'system:default/auth' ? authHealth : recovered,
    );
    signalApi.emit(statusChanged(recovered));

    await untilDrawn(nodes => expect(nodes).toContain('payments: Healthy'));
    expect(getSystem).toHaveBeenCalledTimes(3);
  });

  it('ignores the signals of systems it does not show', async () => {
    const signalApi = createMockSignalApi();
    const getSystem = healthOf(paymentsHealth(), authHealth);
    await renderMap(getSystem, signalApi);
    await untilDrawn(nodes => expect(nodes).toContain('payments: Degraded'));

    signalApi.emit({ type: 'SYSTEM_STATUS_CHANGED', liveKey: 'hidden-system' });

    await new Promise(resolve => setTimeout(resolve, 100));
    expect(getSystem).toHaveBeenCalledTimes(2);
  });

  describe('HealthEntityNode, as renderNode of the stock Relations card', () => {
    it('shows each system’s health with nothing around the card, one request per system', async () => {
      const getSystem = healthOf(paymentsHealth(), authHealth);
      await renderMap(
        getSystem,
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
      // payments-api and payments share one.
      expect(getSystem).toHaveBeenCalledTimes(2);
    });

    it('colours a node’s border by its system’s status: healthy and degraded differ', async () => {
      await renderMap(
        healthOf(paymentsHealth(), authHealth),
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
