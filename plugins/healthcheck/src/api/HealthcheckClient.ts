import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { parseEntityRef } from '@backstage/catalog-model';
import { ResponseError } from '@backstage/errors';
import {
  CheckDetails,
  HealthCheckSpec,
  ListSystemsQuery,
  MaintenanceWindowDetails,
  ObjectiveStatus,
  SliceRunsResponse,
  SliceUptimeResponse,
  SystemHealthDetails,
  SystemHistoryResponse,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import {
  DefaultApiClient,
  TypedResponse,
} from '@vigil/plugin-healthcheck-common/client';
import {
  BadgeOptions,
  CheckSummary,
  HealthcheckApi,
  MaintenanceWindowRequest,
  StartedRun,
} from './HealthcheckApi';

/**
 * {@link HealthcheckApi} over HTTP, with the app's credentials: the client
 * generated from the backend's OpenAPI document, its answers read as the
 * common package's types and its error answers thrown as `ResponseError`s.
 * @public
 */
export class HealthcheckClient implements HealthcheckApi {
  readonly #discoveryApi: DiscoveryApi;
  readonly #api: DefaultApiClient;

  constructor(options: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {
    this.#discoveryApi = options.discoveryApi;
    this.#api = new DefaultApiClient({
      discoveryApi: options.discoveryApi,
      fetchApi: { fetch: (input, init) => options.fetchApi.fetch(input, init) },
    });
  }

  async listChecks(): Promise<CheckSummary[]> {
    return (await bodyOf(this.#api.listChecks({}))).items;
  }

  async getCheck(id: string): Promise<CheckDetails> {
    return await bodyOf(this.#api.getCheck({ path: { id } }));
  }

  async createCheck(input: {
    id?: string;
    title?: string;
    spec: HealthCheckSpec;
  }): Promise<CheckDetails> {
    return await bodyOf(this.#api.createCheck({ body: input }));
  }

  async updateCheck(
    id: string,
    input: { title?: string; spec: HealthCheckSpec; revision?: number },
  ): Promise<CheckDetails> {
    return await bodyOf(this.#api.updateCheck({ path: { id }, body: input }));
  }

  async runCheck(id: string): Promise<StartedRun[]> {
    return (await bodyOf(this.#api.runCheck({ path: { id } }))).items;
  }

  async listSystems(query: ListSystemsQuery = {}): Promise<SystemListResponse> {
    return await bodyOf(
      this.#api.listSystems({
        query: {
          ...query,
          status: query.status?.join(','),
          limit: query.limit?.toString(),
        },
      }),
    );
  }

  async getSystem(systemRef: string): Promise<SystemHealthDetails | undefined> {
    const response = await this.#api.getSystem({ path: systemPath(systemRef) });
    return response.status === 404 ? undefined : await bodyOf(response);
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
    return await bodyOf(
      this.#api.getSystemHistory({
        path: systemPath(systemRef),
        query: {
          environment: query.environment || undefined,
          granularity: query.granularity,
          from: query.from?.toISOString(),
          to: query.to?.toISOString(),
        },
      }),
    );
  }

  async listSliceRuns(
    sliceId: string,
    query: { from?: Date; to?: Date; limit?: number; cursor?: string } = {},
  ): Promise<SliceRunsResponse> {
    return await bodyOf(
      this.#api.listSliceRuns({
        path: { sliceId },
        query: {
          from: query.from?.toISOString(),
          to: query.to?.toISOString(),
          limit: query.limit?.toString(),
          cursor: query.cursor || undefined,
        },
      }),
    );
  }

  async getSliceUptimes(systemRef: string): Promise<SliceUptimeResponse> {
    return await bodyOf(
      this.#api.getSystemSliceUptime({
        path: systemPath(systemRef),
        query: {},
      }),
    );
  }

  async listSystemChecks(systemRef: string): Promise<CheckDetails[]> {
    return (
      await bodyOf(this.#api.listSystemChecks({ path: systemPath(systemRef) }))
    ).items;
  }

  async listSystemObjectives(
    systemRef: string,
    query: { environment?: string; check?: string } = {},
  ): Promise<ObjectiveStatus[]> {
    return (
      await bodyOf(
        this.#api.listSystemObjectives({
          path: systemPath(systemRef),
          query: {
            environment: query.environment || undefined,
            check: query.check || undefined,
          },
        }),
      )
    ).items;
  }

  async listMaintenanceWindows(
    query: { system?: string } = {},
  ): Promise<MaintenanceWindowDetails[]> {
    return (
      await bodyOf(
        this.#api.listMaintenanceWindows({
          query: { system: query.system || undefined },
        }),
      )
    ).items;
  }

  async createMaintenanceWindow(
    request: MaintenanceWindowRequest,
  ): Promise<MaintenanceWindowDetails> {
    const { start, ...rest } = request;
    return await bodyOf(
      this.#api.createMaintenanceWindow({
        body: { ...rest, ...(start && { start: start.toISOString() }) },
      }),
    );
  }

  async endMaintenanceWindow(id: string): Promise<MaintenanceWindowDetails> {
    return await bodyOf(this.#api.endMaintenanceWindow({ path: { id } }));
  }

  async badgeUrl(
    systemRef: string,
    options: BadgeOptions = {},
  ): Promise<string> {
    const baseUrl = await this.#discoveryApi.getBaseUrl('healthcheck');
    const { namespace, name } = systemPath(systemRef);
    const params = new URLSearchParams();
    if (options.kind && options.kind !== 'status')
      params.set('kind', options.kind);
    if (options.window) params.set('window', options.window);
    if (options.environment) params.set('environment', options.environment);
    if (options.objective) params.set('objective', options.objective);
    const search = params.toString();
    return `${baseUrl}/v1/badges/systems/${encodeURIComponent(
      namespace,
    )}/${encodeURIComponent(name)}${search ? `?${search}` : ''}`;
  }
}

/** The body of a successful answer; any other is thrown as a ResponseError. */
async function bodyOf<T>(
  response: TypedResponse<T> | Promise<TypedResponse<T>>,
): Promise<T> {
  const answer = await response;
  if (!answer.ok) {
    throw await ResponseError.fromResponse(answer);
  }
  return await answer.json();
}

function systemPath(systemRef: string): { namespace: string; name: string } {
  const { namespace, name } = parseEntityRef(systemRef, {
    defaultKind: 'system',
  });
  return { namespace, name };
}
