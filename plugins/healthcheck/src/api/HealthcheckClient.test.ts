import { ResponseError } from '@backstage/errors';
import { HealthcheckClient } from './HealthcheckClient';

function clientAnswering(response: Response) {
  const fetch = jest.fn(async (_url: string) => response);
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
