import { ResponseError } from '@backstage/errors';

/**
 * A ResponseError as the client throws it for a failed request, with the
 * backend's error body.
 */
export async function responseError(
  status: number,
  error: Record<string, unknown>,
): Promise<ResponseError> {
  const body = JSON.stringify({ error, response: { statusCode: status } });
  return await ResponseError.fromResponse({
    ok: false,
    status,
    statusText: status === 400 ? 'Bad Request' : 'Conflict',
    url: 'http://localhost/api/healthcheck/v1/checks',
    redirected: false,
    type: 'basic',
    headers: {
      get: (name: string) =>
        name.toLowerCase() === 'content-type' ? 'application/json' : null,
    } as Headers,
    text: async () => body,
  });
}
