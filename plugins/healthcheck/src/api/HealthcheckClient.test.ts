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
      { method: 'GET' },
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
      { method: 'POST' },
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
