import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { ResponseError } from '@backstage/errors';
import { CheckSummary, HealthcheckApi } from './HealthcheckApi';

/**
 * {@link HealthcheckApi} over HTTP, with the app's credentials.
 * @public
 */
export class HealthcheckClient implements HealthcheckApi {
  readonly #discoveryApi: DiscoveryApi;
  readonly #fetchApi: FetchApi;

  constructor(options: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {
    this.#discoveryApi = options.discoveryApi;
    this.#fetchApi = options.fetchApi;
  }

  async listChecks(): Promise<CheckSummary[]> {
    const body = await this.#get<{ items: CheckSummary[] }>('/v1/checks');
    return body.items;
  }

  async #get<T>(path: string): Promise<T> {
    const baseUrl = await this.#discoveryApi.getBaseUrl('healthcheck');
    const response = await this.#fetchApi.fetch(`${baseUrl}${path}`);
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    return (await response.json()) as T;
  }
}
