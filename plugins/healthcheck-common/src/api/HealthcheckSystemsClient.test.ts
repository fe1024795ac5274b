import { HealthcheckSystemsClient } from './HealthcheckSystemsClient';

function clientAnswering(status: number, body: unknown) {
  const calls: Array<{ url: string; init?: RequestInit }> = [];
  const client = new HealthcheckSystemsClient({
    discoveryApi: { getBaseUrl: async id => `http://backend.test/api/${id}` },
    fetchApi: {
      fetch: (async (url: string, init?: RequestInit) => {
        calls.push({ url, init });
        return new Response(JSON.stringify(body), {
          status,
          headers: { 'Content-Type': 'application/json' },
        });
      }) as unknown as typeof fetch,
    },
  });
  return { client, calls };
}

describe('HealthcheckSystemsClient', () => {
  it('reads a system by its ref, with a token when given one', async () => {
    const { client, calls } = clientAnswering(200, { status: 'healthy' });
    expect(
      await client.getSystem('system:default/payments', { token: 't' }),
    ).toEqual({ status: 'healthy' });
    expect(calls[0].url).toBe(
      'http://backend.test/api/healthcheck/v1/systems/default/payments',
    );
    expect(calls[0].init?.headers).toEqual({ Authorization: 'Bearer t' });
  });

  it('answers undefined for a system the backend does not know', async () => {
    const { client } = clientAnswering(404, {
      error: { name: 'NotFoundError', message: 'No system' },
    });
    expect(await client.getSystem('payments')).toBeUndefined();
  });

  it('lists systems with the filters as query parameters', async () => {
    const { client, calls } = clientAnswering(200, {
      items: [],
      totalCount: 0,
      counts: {},
    });
    await client.listSystems({ status: ['unhealthy', 'degraded'], limit: 10 });
    expect(calls[0].url).toBe(
      'http://backend.test/api/healthcheck/v1/systems?status=unhealthy%2Cdegraded&limit=10',
    );
  });

  it('throws the backend’s error for anything else', async () => {
    const { client } = clientAnswering(400, {
      error: { name: 'InputError', message: 'Invalid query: sort' },
      response: { statusCode: 400 },
    });
    await expect(client.listSystems({ sort: 'name' })).rejects.toMatchObject({
      name: 'ResponseError',
      statusCode: 400,
      cause: { name: 'InputError', message: 'Invalid query: sort' },
    });
  });
});
