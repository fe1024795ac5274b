import { parseEntityRef } from '@backstage/catalog-model';
import { ResponseError } from '@backstage/errors';
import type { HealthStatus } from '../status';
import type { SystemHealthDetails, SystemListResponse } from './systems';

/**
 * The query of {@link HealthcheckSystemsClient.listSystems}.
 * @public
 */
export interface ListSystemsQuery {
  status?: HealthStatus[];
  owner?: string;
  environment?: string;
  q?: string;
  sort?: 'status' | 'name';
  limit?: number;
  cursor?: string;
}

/**
 * A small typed client of the rollups, for other plugins, frontend or
 * backend: give it Backstage's discovery and, in a frontend, its fetchApi
 * (which adds the user's token); in a backend pass a `token` per call.
 * @public
 */
export class HealthcheckSystemsClient {
  readonly #discoveryApi: { getBaseUrl(pluginId: string): Promise<string> };
  readonly #fetch: typeof fetch;

  constructor(options: {
    discoveryApi: { getBaseUrl(pluginId: string): Promise<string> };
    fetchApi?: { fetch: typeof fetch };
  }) {
    this.#discoveryApi = options.discoveryApi;
    this.#fetch = options.fetchApi?.fetch ?? globalThis.fetch;
  }

  /** A system's rollup and matrix; `undefined` when there is no such system (or it is hidden from the caller). */
  async getSystem(
    systemRef: string,
    options: { token?: string } = {},
  ): Promise<SystemHealthDetails | undefined> {
    const { namespace, name } = parseEntityRef(systemRef, {
      defaultKind: 'system',
    });
    const response = await this.#get(
      `/v1/systems/${encodeURIComponent(namespace)}/${encodeURIComponent(
        name,
      )}`,
      options.token,
    );
    if (response.status === 404) {
      return undefined;
    }
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    return (await response.json()) as SystemHealthDetails;
  }

  /** A page of systems with their rollups, worst first unless sorted by name. */
  async listSystems(
    query: ListSystemsQuery = {},
    options: { token?: string } = {},
  ): Promise<SystemListResponse> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) {
        params.set(key, Array.isArray(value) ? value.join(',') : String(value));
      }
    }
    const search = params.toString();
    const response = await this.#get(
      `/v1/systems${search ? `?${search}` : ''}`,
      options.token,
    );
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    return (await response.json()) as SystemListResponse;
  }

  async #get(path: string, token: string | undefined): Promise<Response> {
    const baseUrl = await this.#discoveryApi.getBaseUrl('healthcheck');
    return await this.#fetch(`${baseUrl}${path}`, {
      headers: token ? { Authorization: `Bearer ${token}` } : undefined,
    });
  }
}
