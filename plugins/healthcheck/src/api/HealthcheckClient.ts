import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { parseEntityRef } from '@backstage/catalog-model';
import { ResponseError } from '@backstage/errors';
import {
  CheckDetails,
  HealthCheckSpec,
  HealthcheckSystemsClient,
  ListSystemsQuery,
  SliceRunsResponse,
  SliceUptimeResponse,
  SystemHealthDetails,
  SystemHistoryResponse,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import {
  BadgeOptions,
  CheckSummary,
  HealthcheckApi,
  StartedRun,
} from './HealthcheckApi';

/**
 * {@link HealthcheckApi} over HTTP, with the app's credentials.
 * @public
 */
export class HealthcheckClient implements HealthcheckApi {
  readonly #discoveryApi: DiscoveryApi;
  readonly #fetchApi: FetchApi;
  readonly #systems: HealthcheckSystemsClient;

  constructor(options: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {
    this.#discoveryApi = options.discoveryApi;
    this.#fetchApi = options.fetchApi;
    this.#systems = new HealthcheckSystemsClient({
      discoveryApi: options.discoveryApi,
      fetchApi: { fetch: (input, init) => options.fetchApi.fetch(input, init) },
    });
  }

  async listChecks(): Promise<CheckSummary[]> {
    const body = await this.#request<{ items: CheckSummary[] }>('/v1/checks');
    return body.items;
  }

  async getCheck(id: string): Promise<CheckDetails> {
    return await this.#request(`/v1/checks/${encodeURIComponent(id)}`);
  }

  async createCheck(input: {
    id?: string;
    title?: string;
    spec: HealthCheckSpec;
  }): Promise<CheckDetails> {
    return await this.#request('/v1/checks', { method: 'POST', body: input });
  }

  async updateCheck(
    id: string,
    input: { title?: string; spec: HealthCheckSpec; revision?: number },
  ): Promise<CheckDetails> {
    return await this.#request(`/v1/checks/${encodeURIComponent(id)}`, {
      method: 'PUT',
      body: input,
    });
  }

  async runCheck(id: string): Promise<StartedRun[]> {
    const body = await this.#request<{ items: StartedRun[] }>(
      `/v1/checks/${encodeURIComponent(id)}/run`,
      { method: 'POST' },
    );
    return body.items;
  }

  async listSystems(query?: ListSystemsQuery): Promise<SystemListResponse> {
    return await this.#systems.listSystems(query);
  }

  async getSystem(systemRef: string): Promise<SystemHealthDetails | undefined> {
    return await this.#systems.getSystem(systemRef);
  }

  async getSystemHistory(
    systemRef: string,
    query: {
      environment?: string;
      granularity?: 'hours' | 'runs';
      from?: Date;
      to?: Date;
    },
  ): Promise<SystemHistoryResponse> {
    const params = new URLSearchParams();
    if (query.environment) params.set('environment', query.environment);
    if (query.granularity) params.set('granularity', query.granularity);
    if (query.from) params.set('from', query.from.toISOString());
    if (query.to) params.set('to', query.to.toISOString());
    return await this.#request(
      `${systemPath(systemRef)}/history?${params.toString()}`,
    );
  }

  async listSliceRuns(
    sliceId: string,
    query: { from?: Date; to?: Date; limit?: number; cursor?: string } = {},
  ): Promise<SliceRunsResponse> {
    const params = new URLSearchParams();
    if (query.from) params.set('from', query.from.toISOString());
    if (query.to) params.set('to', query.to.toISOString());
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor) params.set('cursor', query.cursor);
    const search = params.toString();
    return await this.#request(
      `/v1/slices/${encodeURIComponent(sliceId)}/runs${
        search ? `?${search}` : ''
      }`,
    );
  }

  async getSliceUptimes(systemRef: string): Promise<SliceUptimeResponse> {
    return await this.#request(`${systemPath(systemRef)}/uptime`);
  }

  async listSystemChecks(systemRef: string): Promise<CheckDetails[]> {
    const { items } = await this.#request<{ items: CheckDetails[] }>(
      `${systemPath(systemRef)}/checks`,
    );
    return items;
  }

  async badgeUrl(
    systemRef: string,
    options: BadgeOptions = {},
  ): Promise<string> {
    const baseUrl = await this.#discoveryApi.getBaseUrl('healthcheck');
    const { namespace, name } = parseEntityRef(systemRef, {
      defaultKind: 'system',
    });
    const params = new URLSearchParams();
    if (options.kind && options.kind !== 'status')
      params.set('kind', options.kind);
    if (options.window) params.set('window', options.window);
    if (options.environment) params.set('environment', options.environment);
    const search = params.toString();
    return `${baseUrl}/v1/badges/systems/${encodeURIComponent(
      namespace,
    )}/${encodeURIComponent(name)}${search ? `?${search}` : ''}`;
  }

  async #request<T>(
    path: string,
    options: { method?: string; body?: unknown } = {},
  ): Promise<T> {
    const baseUrl = await this.#discoveryApi.getBaseUrl('healthcheck');
    const response = await this.#fetchApi.fetch(`${baseUrl}${path}`, {
      method: options.method ?? 'GET',
      ...(options.body !== undefined && {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(options.body),
      }),
    });
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    return (await response.json()) as T;
  }
}

function systemPath(systemRef: string): string {
  const { namespace, name } = parseEntityRef(systemRef, {
    defaultKind: 'system',
  });
  return `/v1/systems/${encodeURIComponent(namespace)}/${encodeURIComponent(
    name,
  )}`;
}
