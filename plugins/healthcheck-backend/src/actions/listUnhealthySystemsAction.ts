import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import type { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { parseSystemListQuery } from '../service/parseSystemListQuery';
import type { SystemHealthReads } from '../service/systemHealthReads';
import { healthStatusSchema, systemSummarySchema } from './schemas';

/** What "unhealthy" means when the caller does not say. */
const NOT_HEALTHY: HealthStatus[] = ['unhealthy', 'degraded'];

/**
 * `list-unhealthy-systems`: the systems with the given statuses, worst
 * first, with the overview page's filters, as `GET /v1/systems`.
 * @internal
 */
export function registerListUnhealthySystemsAction(deps: {
  actionsRegistry: ActionsRegistryService;
  reads: Pick<SystemHealthReads, 'listSystems'>;
}) {
  deps.actionsRegistry.register({
    name: 'list-unhealthy-systems',
    title: 'List unhealthy systems',
    description: `Lists the Systems of the software catalog that Vigil's health checks find unhealthy or degraded (or with the statuses asked for), worst first, with the reasons each is not healthy.
Filters as on Vigil's overview page: owner, environment and a search of name, title and ref. Counts of every status among the systems matching the other filters come with the page; pass nextCursor back as cursor for the next page.
Only systems you may read in the catalog are listed.`,
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          statuses: z
            .array(healthStatusSchema(z))
            .min(1)
            .optional()
            .describe(
              'The statuses to list; unhealthy and degraded when left out',
            ),
          owner: z
            .string()
            .optional()
            .describe(
              'Only systems of this owner: a group or user name or ref (team-a, group:default/team-a)',
            ),
          environment: z
            .string()
            .optional()
            .describe('Only systems checked in this environment (production)'),
          search: z
            .string()
            .optional()
            .describe(
              'Only systems whose name, title or ref contains this, whatever the case',
            ),
          limit: z
            .number()
            .int()
            .min(1)
            .max(100)
            .optional()
            .describe('Systems per page, 1 to 100; 20 when left out'),
          cursor: z
            .string()
            .optional()
            .describe('nextCursor of the previous page'),
        }),
      output: z =>
        z.object({
          items: z.array(systemSummarySchema(z)),
          totalCount: z.number().describe('Systems that match, on all pages'),
          counts: z
            .record(z.number())
            .describe(
              'Per status, how many systems match the filters other than statuses',
            ),
          nextCursor: z.string().optional(),
        }),
    },
    action: async ({ input, credentials }) => {
      // The REST query's reading, so both refuse the same things alike.
      const query = parseSystemListQuery(
        Object.fromEntries(
          Object.entries({
            status: (input.statuses ?? NOT_HEALTHY).join(','),
            owner: input.owner,
            environment: input.environment,
            q: input.search,
            sort: 'status',
            limit: String(input.limit ?? 20),
            cursor: input.cursor,
          }).filter(([, value]) => value !== undefined),
        ),
      );
      return { output: await deps.reads.listSystems(query, credentials) };
    },
  });
}
