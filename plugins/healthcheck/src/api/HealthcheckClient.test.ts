import { ResponseError } from '@backstage/errors';
import { HealthcheckClient } from './HealthcheckClient';

function clientAnswering(response: Response) {
  const fetch = jest.fn(async (_url: string, _init?: RequestInit) => response);
  const client = new HealthcheckClient({
    discoveryApi: {
      getBaseUrl: async id => `http://backend.test/api/${id}`,
    },
    fetchApi: { fetch: fetch as unknown as typeof globalThis.fetch },
  });
  return { client, fetch };
}

describe('HealthcheckClient', () => {
  it('lists checks from the backend of the healthcheck plugin', async () => {
    const items = [{ id: 'healthcheck:default/payments-api' }];
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
    await expect(client.listChecks()).resolves.toEqual(items);
    expect(fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/checks',
      expect.objectContaining({ method: 'GET' }),
    );
  });

  it('runs a check now with a POST and answers the runs it started', async () => {
    const items = [{ runId: 'r', environment: 'production' }];
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items }), { status: 202 }),
    );
    await expect(
      client.runCheck('healthcheck:default/payments-health'),
    ).resolves.toEqual(items);
    expect(fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/checks/healthcheck%3Adefault%2Fpayments-health/run',
      expect.objectContaining({ method: 'POST' }),
    );
  });

  it('asks for a system’s history with the range as ISO times', async () => {
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items: [] }), { status: 200 }),
    );
    await client.getSystemHistory('system:default/payments', {
      environment: 'production',
      granularity: 'hours',
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-30T00:00:00Z'),
    });
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/systems/default/payments/history?environment=production&granularity=hours&from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-30T00%3A00%3A00.000Z',
    );
  });

  it('asks for a page of a slice’s runs with the range as ISO times and the cursor', async () => {
    const page = {
      runs: [{ sliceId: 's', status: 'healthy' }],
      nextCursor: 'c2',
    };
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify(page), { status: 200 }),
    );
    await expect(
      client.listSliceRuns(
        'healthcheck:payments-db:system%3Adefault%2Fpayments:production',
        {
          from: new Date('2026-11-01T00:00:00Z'),
          to: new Date('2026-11-02T00:00:00Z'),
          limit: 1000,
          cursor: 'c1',
        },
      ),
    ).resolves.toEqual(page);
    expect(fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/slices/healthcheck%3Apayments-db%3Asystem%253Adefault%252Fpayments%3Aproduction/runs?from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-02T00%3A00%3A00.000Z&limit=1000&cursor=c1',
      expect.objectContaining({ method: 'GET' }),
    );
  });

  it('asks for a slice’s runs without a query, leaving the range to the backend', async () => {
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ runs: [] }), { status: 200 }),
    );
    await client.listSliceRuns('s');
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/slices/s/runs',
    );
  });

  it('asks for the up-time of each slice of a system', async () => {
    const body = {
      to: '2026-11-30T12:00:00.000Z',
      windows: ['24h', '7d', '30d'],
      slices: { s: { '24h': 1, '7d': 0.99, '30d': null } },
    };
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify(body), { status: 200 }),
    );
    await expect(
      client.getSliceUptimes('system:default/payments'),
    ).resolves.toEqual(body);
    expect(fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/systems/default/payments/uptime',
      expect.objectContaining({ method: 'GET' }),
    );
  });

  it("asks for the details of a system's checks in one request", async () => {
    const items = [
      { id: 'healthcheck:default/a', spec: {}, source: { kind: 'gitops' } },
    ];
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items }), { status: 200 }),
    );
    await expect(
      client.listSystemChecks('system:default/payments'),
    ).resolves.toEqual(items);
    expect(fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/systems/default/payments/checks',
      expect.objectContaining({ method: 'GET' }),
    );
  });

  it('builds the badge URL of a system for a kind and window', async () => {
    const { client } = clientAnswering(new Response('{}'));
    await expect(
      client.badgeUrl('system:default/payments', {
        kind: 'uptime',
        window: '30d',
      }),
    ).resolves.toBe(
      'http://backend.test/api/healthcheck/v1/badges/systems/default/payments?kind=uptime&window=30d',
    );
  });

  it('builds the URL of an SLO badge, of one objective when named', async () => {
    const { client } = clientAnswering(new Response('{}'));
    await expect(
      client.badgeUrl('system:default/payments', {
        kind: 'slo',
        environment: 'production',
        objective: 'servicelevelobjective:default/payments-availability',
      }),
    ).resolves.toBe(
      'http://backend.test/api/healthcheck/v1/badges/systems/default/payments?kind=slo&environment=production&objective=servicelevelobjective%3Adefault%2Fpayments-availability',
    );
  });

  it('lists a system’s objectives, filtered by environment and check', async () => {
    const items = [{ ref: 'servicelevelobjective:default/payments-up' }];
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items }), { status: 200 }),
    );
    await expect(
      client.listSystemObjectives('system:team-a/payments', {
        environment: 'production',
        check: 'healthcheck:default/payments-health',
      }),
    ).resolves.toEqual(items);
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/systems/team-a/payments/slos?environment=production&check=healthcheck%3Adefault%2Fpayments-health',
    );
  });

  it('lists the maintenance windows of one system, or all', async () => {
    const items = [{ id: 'w1', source: 'api' }];
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items }), { status: 200 }),
    );
    await expect(
      client.listMaintenanceWindows({ system: 'system:default/payments' }),
    ).resolves.toEqual(items);
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/maintenance-windows?system=system%3Adefault%2Fpayments',
    );
  });

  it('opens a maintenance window with a POST, its start as an ISO time, and ends it', async () => {
    const window = { id: 'w1', source: 'api' };
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify(window), { status: 201 }),
    );
    await expect(
      client.createMaintenanceWindow({
        system: 'payments',
        duration: '30m',
        environments: ['production'],
        start: new Date('2026-11-01T10:00:00Z'),
        reason: 'Deploying 4.2',
      }),
    ).resolves.toEqual(window);
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/maintenance-windows',
    );
    expect(fetch.mock.calls[0][1]).toMatchObject({ method: 'POST' });
    expect(JSON.parse(String(fetch.mock.calls[0][1]?.body))).toEqual({
      system: 'payments',
      duration: '30m',
      environments: ['production'],
      start: '2026-11-01T10:00:00.000Z',
      reason: 'Deploying 4.2',
    });

    const ending = clientAnswering(
      new Response(JSON.stringify(window), { status: 200 }),
    );
    await ending.client.endMaintenanceWindow('w1');
    expect(ending.fetch).toHaveBeenCalledWith(
      'http://backend.test/api/healthcheck/v1/maintenance-windows/w1/end',
      expect.objectContaining({ method: 'POST' }),
    );
  });

  it('answers undefined for a system the backend does not know', async () => {
    const { client } = clientAnswering(
      new Response(
        JSON.stringify({
          error: { name: 'NotFoundError', message: 'No system' },
        }),
        { status: 404 },
      ),
    );
    expect(await client.getSystem('payments')).toBeUndefined();
  });

  it('lists systems with the filters as query parameters', async () => {
    const { client, fetch } = clientAnswering(
      new Response(JSON.stringify({ items: [], totalCount: 0, counts: {} })),
    );
    await client.listSystems({ status: ['unhealthy', 'degraded'], limit: 10 });
    expect(fetch.mock.calls[0][0]).toBe(
      'http://backend.test/api/healthcheck/v1/systems?status=unhealthy%2Cdegraded&limit=10',
    );
  });

  it('throws the backend’s error, its name and message as the cause', async () => {
    const { client } = clientAnswering(
      new Response(
        JSON.stringify({
          error: { name: 'InputError', message: 'Invalid query: sort' },
          response: { statusCode: 400 },
        }),
        { status: 400, headers: { 'content-type': 'application/json' } },
      ),
    );
    await expect(client.listSystems({ sort: 'name' })).rejects.toMatchObject({
      name: 'ResponseError',
      statusCode: 400,
      cause: { name: 'InputError', message: 'Invalid query: sort' },
    });
  });

  it('turns an error answer into a ResponseError that keeps the status', async () => {
    const { client } = clientAnswering(
      new Response(
        JSON.stringify({ error: { name: 'NotAllowedError', message: 'no' } }),
        { status: 403, statusText: 'Forbidden' },
      ),
    );
    const error = await client.listChecks().catch(e => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.statusCode).toBe(403);
  });
});
