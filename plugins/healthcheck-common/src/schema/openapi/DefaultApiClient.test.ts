import { DefaultApiClient } from '../../client';

/** The generated client over a fetch that records each request. */
function clientAnswering(status: number, body: unknown) {
  const calls: Array<{ url: string; init?: RequestInit }> = [];
  const client = new DefaultApiClient({
    discoveryApi: { getBaseUrl: async id => `http://backend.test/api/${id}` },
    fetchApi: {
      fetch: (async (url: string, init?: RequestInit) => {
        calls.push({ url, init });
        return new Response(JSON.stringify(body), { status });
      }) as typeof fetch,
    },
  });
  return { client, calls };
}

describe('the client generated from the OpenAPI document', () => {
  it('reads a system by its ref, with a token when given one', async () => {
    const { client, calls } = clientAnswering(200, { status: 'healthy' });
    const response = await client.getSystem(
      { path: { namespace: 'default', name: 'payments' } },
      { token: 't' },
    );
    expect(await response.json()).toEqual({ status: 'healthy' });
    expect(calls[0].url).toBe(
      'http://backend.test/api/healthcheck/v1/systems/default/payments',
    );
    expect(calls[0].init?.headers).toMatchObject({ Authorization: 'Bearer t' });
  });

  it('encodes an entity ref as one path segment and sends the body as JSON', async () => {
    const { client, calls } = clientAnswering(200, {});
    await client.updateCheck({
      path: { id: 'healthcheck:default/payments-http' },
      body: { title: 'Payments', spec: {} },
    });
    expect(calls[0]).toEqual({
      url: 'http://backend.test/api/healthcheck/v1/checks/healthcheck%3Adefault%2Fpayments-http',
      init: expect.objectContaining({
        method: 'PUT',
        body: JSON.stringify({ title: 'Payments', spec: {} }),
      }),
    });
  });

  it('leaves out the query parameters not given', async () => {
    const { client, calls } = clientAnswering(200, { items: [] });
    await client.listSystems({ query: { sort: 'name', cursor: undefined } });
    expect(calls[0].url).toBe(
      'http://backend.test/api/healthcheck/v1/systems?sort=name',
    );
  });
});
