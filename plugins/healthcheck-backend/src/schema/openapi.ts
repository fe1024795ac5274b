/**
 * The OpenAPI 3.1 document of the health-check API, served at
 * `/api/healthcheck/openapi.json`, and the schema every request is
 * validated against before it reaches a route (see `createApiRouter`).
 * Request bodies and query strings are checked here for shape and type; the
 * routes then check meaning (a check's spec, durations, conditions) and
 * answer with every problem listed.
 *
 * @internal
 */
/** The error answers of an operation: each is Backstage's error body. */
function errorResponses<const Status extends string>(...statuses: Status[]) {
  return Object.fromEntries(
    statuses.map(status => [
      status,
      { $ref: '#/components/responses/ErrorResponse' } as const,
    ]),
  ) as Record<
    Status,
    { readonly $ref: '#/components/responses/ErrorResponse' }
  >;
}

export const spec = {
  openapi: '3.1.0',
  info: {
    title: 'healthcheck',
    version: '1',
    description:
      'Vigil health checks: checks (from Git and the API), per-system rollups, history, run now and badges.',
    license: { name: 'Apache-2.0' },
  },
  servers: [{ url: '/' }],
  components: {
    securitySchemes: {
      JWT: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    },
    parameters: {
      namespace: {
        name: 'namespace',
        in: 'path',
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
      name: {
        name: 'name',
        in: 'path',
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
      checkId: {
        name: 'id',
        in: 'path',
        required: true,
        description:
          'An API check id (`payments-http`) or a URL-encoded HealthCheck entity ref.',
        schema: { type: 'string', minLength: 1 },
      },
      sliceId: {
        name: 'sliceId',
        in: 'path',
        required: true,
        description:
          'A URL-encoded slice id, `healthcheck:<check>:<system>:<environment>`.',
        schema: { type: 'string', minLength: 1 },
      },
      from: {
        name: 'from',
        in: 'query',
        description: 'ISO 8601 or epoch ms; default 24 hours before `to`.',
        schema: { type: 'string' },
      },
      to: {
        name: 'to',
        in: 'query',
        description: 'ISO 8601 or epoch ms; default now.',
        schema: { type: 'string' },
      },
      limit: {
        name: 'limit',
        in: 'query',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
      cursor: {
        name: 'cursor',
        in: 'query',
        description: 'The `nextCursor` of the previous page.',
        schema: { type: 'string' },
      },
    },
    responses: {
      ErrorResponse: {
        description: 'What went wrong, as Backstage answers errors.',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
          },
        },
      },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['name', 'message'],
            properties: {
              name: { type: 'string' },
              message: { type: 'string' },
            },
          },
          request: { type: 'object' },
          response: { type: 'object' },
        },
      },
      HealthStatus: {
        type: 'string',
        enum: ['healthy', 'degraded', 'unhealthy', 'unknown', 'paused'],
      },
      RollupReason: {
        type: 'object',
        required: ['checkId', 'environment', 'status', 'display'],
        properties: {
          checkId: { type: 'string' },
          environment: { type: 'string' },
          status: { $ref: '#/components/schemas/HealthStatus' },
          display: { type: 'string' },
          components: {
            type: 'array',
            items: { type: 'string' },
            description:
              'Canonical refs of the Components the check targets, when it names any.',
          },
        },
      },
      EnvironmentRollup: {
        type: 'object',
        required: ['name', 'status', 'healthy', 'total', 'since'],
        properties: {
          name: { type: 'string' },
          status: { $ref: '#/components/schemas/HealthStatus' },
          healthy: { type: 'integer' },
          total: { type: 'integer' },
          since: { type: 'string', format: 'date-time' },
        },
      },
      SystemRollup: {
        type: 'object',
        required: [
          'systemRef',
          'status',
          'environments',
          'reasons',
          'healthy',
          'total',
          'upstream',
          'updatedAt',
          'since',
        ],
        properties: {
          systemRef: { type: 'string' },
          status: { $ref: '#/components/schemas/HealthStatus' },
          environments: {
            type: 'array',
            items: { $ref: '#/components/schemas/EnvironmentRollup' },
          },
          reasons: {
            type: 'array',
            items: { $ref: '#/components/schemas/RollupReason' },
          },
          healthy: { type: 'integer' },
          total: { type: 'integer' },
          upstream: {
            type: 'array',
            items: {
              type: 'object',
              required: ['systemRef', 'status'],
              properties: {
                systemRef: { type: 'string' },
                status: { $ref: '#/components/schemas/HealthStatus' },
              },
            },
          },
          updatedAt: { type: 'string', format: 'date-time' },
          since: { type: 'string', format: 'date-time' },
          stale: {
            type: 'boolean',
            description:
              'True when the database could not be read and this is the last rollup the backend read (updatedAt says how old); absent otherwise.',
          },
        },
      },
      SystemHealthSummary: {
        allOf: [
          { $ref: '#/components/schemas/SystemRollup' },
          {
            type: 'object',
            required: ['name', 'namespace', 'liveKey'],
            properties: {
              name: { type: 'string' },
              namespace: { type: 'string' },
              title: { type: 'string' },
              owner: { type: 'string' },
              liveKey: {
                type: 'string',
                description:
                  'The system’s opaque key on the signal channel healthcheck:system-status: a signal `{ type: SYSTEM_STATUS_CHANGED, liveKey }` with it means this system’s rollup changed.',
              },
            },
          },
        ],
      },
      SliceHealth: {
        type: 'object',
        required: ['sliceId', 'checkId', 'environment', 'status', 'paused'],
        properties: {
          sliceId: { type: 'string' },
          checkId: { type: 'string' },
          environment: { type: 'string' },
          status: { $ref: '#/components/schemas/HealthStatus' },
          paused: { type: 'boolean' },
          lastRunAt: { type: 'string', format: 'date-time' },
          lastDurationMs: { type: 'number' },
          lastReason: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
        },
      },
      SliceUptimes: {
        type: 'object',
        required: ['to', 'windows', 'slices'],
        properties: {
          to: {
            type: 'string',
            format: 'date-time',
            description: 'The end of every window.',
          },
          windows: {
            type: 'array',
            items: { type: 'string', enum: ['24h', '7d', '30d'] },
          },
          slices: {
            type: 'object',
            description:
              'Per slice id, per window: up / (up + down), paused and unknown time left out; null without up or down time.',
            additionalProperties: {
              type: 'object',
              required: ['24h', '7d', '30d'],
              properties: {
                '24h': { type: ['number', 'null'], minimum: 0, maximum: 1 },
                '7d': { type: ['number', 'null'], minimum: 0, maximum: 1 },
                '30d': { type: ['number', 'null'], minimum: 0, maximum: 1 },
              },
            },
          },
        },
      },
      CheckInput: {
        type: 'object',
        description:
          'A check: `spec` as in a HealthCheck entity. The route lists every problem of the spec.',
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          revision: { type: 'integer' },
          spec: { type: 'object' },
        },
      },
      CheckDetails: {
        type: 'object',
        required: ['id', 'spec', 'source'],
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          revision: { type: 'integer' },
          spec: { type: 'object' },
          source: { type: 'object' },
        },
      },
    },
  },
  security: [{}, { JWT: [] }],
  paths: {
    '/health': {
      get: {
        operationId: 'GetHealth',
        description: 'Liveness of the plugin; needs no credentials.',
        responses: { '200': { description: 'ok' } },
      },
    },
    '/v1/checks': {
      get: {
        operationId: 'ListChecks',
        description:
          'Every check the caller may see, from Git and from the API, with its source: those whose systems the caller can all read in the catalog and that the policy lets them read (healthcheck.check.read).',
        responses: {
          '200': { description: 'The checks' },
          ...errorResponses('401'),
        },
      },
      post: {
        operationId: 'CreateCheck',
        description:
          'Creates a check; permission healthcheck.check.create. Every system it names must be one the caller can read in the catalog.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/CheckInput' },
            },
          },
        },
        responses: {
          '201': {
            description: 'The stored check',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CheckDetails' },
              },
            },
          },
          ...errorResponses('400', '403', '409', '413'),
        },
      },
    },
    '/v1/checks/{id}': {
      parameters: [{ $ref: '#/components/parameters/checkId' }],
      get: {
        operationId: 'GetCheck',
        description:
          'A check the caller may see (see ListChecks); any other answers 404.',
        responses: {
          '200': {
            description: 'The check',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CheckDetails' },
              },
            },
          },
          ...errorResponses('404'),
        },
      },
      put: {
        operationId: 'UpdateCheck',
        description:
          'Replaces an API check; permission healthcheck.check.update on it. A check the caller may not see answers 404, a GitOps check 409; every system it names before and after must be one the caller can read.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/CheckInput' },
            },
          },
        },
        responses: {
          '200': { description: 'The stored check' },
          ...errorResponses('400', '403', '404', '409'),
        },
      },
      delete: {
        operationId: 'DeleteCheck',
        description:
          'Deletes an API check; permission healthcheck.check.delete on it. A check the caller may not see answers 404, a GitOps check 409.',
        parameters: [
          {
            name: 'revision',
            in: 'query',
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
        ],
        responses: {
          '204': { description: 'Deleted' },
          ...errorResponses('403', '404', '409'),
        },
      },
    },
    '/v1/checks/{id}/run': {
      parameters: [{ $ref: '#/components/parameters/checkId' }],
      post: {
        operationId: 'RunCheck',
        description:
          'Runs the check once now in each of its environments, on the instance asked, whichever owns them, off its schedule, through the bulkhead like any tick; a slice whose run is under way on any instance answers with that run, and a scheduled tick never runs beside it. Each run id is listed under GET /v1/slices/{sliceId}/runs once done. Permission healthcheck.check.run on it; a check the caller may not see answers 404. A few requests a minute per caller (healthcheck.runNow.perCallerPerMinute), then 429 with Retry-After.',
        responses: {
          '202': { description: 'The runs started or joined, with their ids' },
          ...errorResponses('403', '404', '429'),
        },
      },
    },
    '/v1/probe-types': {
      get: {
        operationId: 'ListProbeTypes',
        responses: { '200': { description: 'The probe types' } },
      },
    },
    '/v1/systems': {
      get: {
        operationId: 'ListSystems',
        description:
          'Every system the caller may read in the catalog, with its rollup; upstream systems and components the caller cannot read are left out.',
        parameters: [
          {
            name: 'status',
            in: 'query',
            description: 'Comma-separated statuses.',
            schema: { type: 'string' },
          },
          { name: 'owner', in: 'query', schema: { type: 'string' } },
          { name: 'environment', in: 'query', schema: { type: 'string' } },
          {
            name: 'q',
            in: 'query',
            description: 'Search in name, title and ref.',
            schema: { type: 'string' },
          },
          {
            name: 'sort',
            in: 'query',
            description: '`status` (worst first, the default) or `name`.',
            schema: { type: 'string' },
          },
          { $ref: '#/components/parameters/limit' },
          { $ref: '#/components/parameters/cursor' },
        ],
        responses: {
          '200': {
            description: 'A page of systems',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items', 'totalCount', 'counts'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/SystemHealthSummary',
                      },
                    },
                    totalCount: { type: 'integer' },
                    counts: { type: 'object' },
                    nextCursor: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errorResponses('400'),
        },
      },
    },
    '/v1/systems/{namespace}/{name}': {
      parameters: [
        { $ref: '#/components/parameters/namespace' },
        { $ref: '#/components/parameters/name' },
      ],
      get: {
        operationId: 'GetSystem',
        description:
          'A system’s rollup and its environment x check matrix; each check row names the `components` its check targets, when it names any. Upstream systems and components the caller cannot read are left out.',
        responses: {
          '200': { description: 'The system' },
          ...errorResponses('404'),
        },
      },
    },
    '/v1/systems/{namespace}/{name}/history': {
      parameters: [
        { $ref: '#/components/parameters/namespace' },
        { $ref: '#/components/parameters/name' },
      ],
      get: {
        operationId: 'GetSystemHistory',
        description:
          'Runs or hourly aggregates of a system (or one environment) over a time range, with its time-weighted up-time and response time.',
        parameters: [
          { name: 'environment', in: 'query', schema: { type: 'string' } },
          {
            name: 'granularity',
            in: 'query',
            description: '`hours` (the default) or `runs`.',
            schema: { type: 'string' },
          },
          { $ref: '#/components/parameters/from' },
          { $ref: '#/components/parameters/to' },
          { $ref: '#/components/parameters/limit' },
          { $ref: '#/components/parameters/cursor' },
        ],
        responses: {
          '200': { description: 'The history' },
          ...errorResponses('400', '404'),
        },
      },
    },
    '/v1/systems/{namespace}/{name}/uptime': {
      parameters: [
        { $ref: '#/components/parameters/namespace' },
        { $ref: '#/components/parameters/name' },
      ],
      get: {
        operationId: 'GetSystemSliceUptime',
        description:
          'The time-weighted up-time of each slice of a system (each cell of its environment x check matrix) over the 24 hours, 7 days and 30 days before `to`.',
        parameters: [
          {
            name: 'to',
            in: 'query',
            description:
              'The end of the windows: ISO 8601 or epoch ms; default now, and never later.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'Up-time per slice and window',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/SliceUptimes' },
              },
            },
          },
          ...errorResponses('400', '401', '404'),
        },
      },
    },
    '/v1/systems/{namespace}/{name}/checks': {
      parameters: [
        { $ref: '#/components/parameters/namespace' },
        { $ref: '#/components/parameters/name' },
      ],
      get: {
        operationId: 'ListSystemChecks',
        description:
          'The details of the checks in a system’s matrix (those with slices of the system) that the caller may see, as `GET /v1/checks/{id}` gives each.',
        responses: {
          '200': {
            description: 'The checks, by id',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: { $ref: '#/components/schemas/CheckDetails' },
                    },
                  },
                },
              },
            },
          },
          ...errorResponses('400', '401', '404'),
        },
      },
    },
    '/v1/slices/{sliceId}': {
      parameters: [{ $ref: '#/components/parameters/sliceId' }],
      get: {
        operationId: 'GetSlice',
        responses: {
          '200': {
            description: 'The slice',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/SliceHealth' },
              },
            },
          },
          ...errorResponses('400', '404'),
        },
      },
    },
    '/v1/slices/{sliceId}/runs': {
      parameters: [{ $ref: '#/components/parameters/sliceId' }],
      get: {
        operationId: 'ListSliceRuns',
        parameters: [
          { $ref: '#/components/parameters/from' },
          { $ref: '#/components/parameters/to' },
          { $ref: '#/components/parameters/limit' },
          { $ref: '#/components/parameters/cursor' },
        ],
        responses: {
          '200': { description: 'A page of runs, newest first' },
          ...errorResponses('400', '404'),
        },
      },
    },
    '/v1/badges/systems/{namespace}/{name}': {
      parameters: [
        { $ref: '#/components/parameters/namespace' },
        { $ref: '#/components/parameters/name' },
      ],
      get: {
        operationId: 'GetSystemBadge',
        description:
          'An SVG badge (or a shields.io endpoint JSON with `format=json`) of a system’s status, up-time or response time. Only of a system the caller may read in the catalog (anonymous callers: one an anonymous principal may read, or one listed in healthcheck.badges.publicSystems); any other answers 404, as an unknown system does.',
        parameters: [
          {
            name: 'kind',
            in: 'query',
            description: '`status` (default), `uptime` or `response-time`.',
            schema: { type: 'string' },
          },
          {
            name: 'window',
            in: 'query',
            description: '`24h`, `7d` or `30d`.',
            schema: { type: 'string' },
          },
          { name: 'environment', in: 'query', schema: { type: 'string' } },
          {
            name: 'percentile',
            in: 'query',
            description: '`p50` or `p95` (response time).',
            schema: { type: 'string' },
          },
          {
            name: 'format',
            in: 'query',
            description: '`svg` (default) or `json`.',
            schema: { type: 'string' },
          },
          { name: 'style', in: 'query', schema: { type: 'string' } },
          { name: 'label', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The badge' },
          ...errorResponses('400', '404'),
        },
      },
    },
  },
} as const;
