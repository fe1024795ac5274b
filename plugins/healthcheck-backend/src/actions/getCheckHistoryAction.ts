import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { NotFoundError } from '@backstage/errors';
import type { SliceUptimeWindow } from '@vigil/plugin-healthcheck-common';
import type { StoredRun } from '../model';
import { parseHistoryQuery } from '../service/parseHistoryQuery';
import type { SystemHealthReads } from '../service/systemHealthReads';
import { healthStatusSchema, runSchema } from './schemas';
import { systemRefOf } from './systemRefOf';

/**
 * `get-check-history`: the recent runs of one check of a system in each of
 * its environments, and its up-time over the last 24 hours, 7 and 30 days;
 * the reads of `GET /v1/slices/{id}/runs` and `.../uptime`.
 * @internal
 */
export function registerGetCheckHistoryAction(deps: {
  actionsRegistry: ActionsRegistryService;
  reads: Pick<
    SystemHealthReads,
    'systemDetails' | 'sliceRuns' | 'sliceUptimes'
  >;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  deps.actionsRegistry.register({
    name: 'get-check-history',
    title: 'Get check history',
    description: `The history of one of Vigil's health checks on a System: per environment, its current status, its up-time over the last 24 hours, 7 days and 30 days (from 0 to 1; null without data), and its runs between from and to (the last 24 hours by default), newest first, each with its outcome, duration and the conditions it judged.
The check ids of a system are in the answer of get-system-health (checks[].checkId).`,
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          system: z
            .string()
            .describe('The System: its name, namespace/name or entity ref'),
          check: z
            .string()
            .describe(
              "The check id, as get-system-health lists it (healthcheck:default/payments-http, or an API check's id)",
            ),
          environment: z
            .string()
            .optional()
            .describe(
              "Only this environment; all of the check's when left out",
            ),
          from: z
            .string()
            .optional()
            .describe(
              'ISO 8601 start of the runs listed; 24 hours before to when left out',
            ),
          to: z
            .string()
            .optional()
            .describe('ISO 8601 end of the runs listed; now when left out'),
          limit: z
            .number()
            .int()
            .min(1)
            .max(100)
            .optional()
            .describe(
              'Runs per environment, newest first, 1 to 100; 20 when left out',
            ),
        }),
      output: z =>
        z.object({
          systemRef: z.string(),
          checkId: z.string(),
          from: z.string(),
          to: z.string(),
          environments: z.array(
            z.object({
              environment: z.string(),
              sliceId: z.string(),
              status: healthStatusSchema(z),
              uptime: z
                .record(z.number().nullable())
                .describe(
                  'Per window (24h, 7d, 30d): up / (up + down), null without data',
                ),
              runs: z.array(runSchema(z)),
              moreRuns: z
                .boolean()
                .describe('True when older runs in the range were left out'),
            }),
          ),
        }),
    },
    action: async ({ input, credentials }) => {
      const systemRef = systemRefOf(input.system);
      const range = parseHistoryQuery(
        definedOnly({
          from: input.from,
          to: input.to,
          limit: String(input.limit ?? 20),
        }),
        now(),
      );
      const cells = await cellsOfCheck(
        deps.reads,
        systemRef,
        input.check,
        input.environment,
        credentials,
      );
      const [uptimes, ...pages] = await Promise.all([
        deps.reads.sliceUptimes(
          systemRef,
          Math.min(range.to, now()),
          credentials,
        ),
        ...cells.map(cell =>
          deps.reads.sliceRuns(
            cell.sliceId,
            { from: range.from, to: range.to, limit: range.limit },
            credentials,
          ),
        ),
      ]);
      return {
        output: {
          systemRef,
          checkId: cells[0].checkId,
          from: new Date(range.from).toISOString(),
          to: new Date(range.to).toISOString(),
          environments: cells.map((cell, index) => ({
            environment: cell.environment,
            sliceId: cell.sliceId,
            status: cell.status,
            uptime: uptimes.slices[cell.sliceId] ?? noUptime(uptimes.windows),
            runs: pages[index].runs.map(runForAgent),
            moreRuns: pages[index].nextCursor !== undefined,
          })),
        },
      };
    },
  });
}

/**
 * The cells of one check in a system's matrix (one per environment), as
 * the caller may see the system; 404 naming what there is instead.
 */
async function cellsOfCheck(
  reads: Pick<SystemHealthReads, 'systemDetails'>,
  systemRef: string,
  check: string,
  environment: string | undefined,
  credentials: BackstageCredentials,
) {
  const details = await reads.systemDetails(systemRef, credentials);
  const wanted = check.trim().toLowerCase();
  const row = details.checks.find(r => r.checkId.toLowerCase() === wanted);
  if (!row) {
    throw new NotFoundError(
      `${systemRef} has no check '${check}'; its checks: ${
        details.checks.map(r => r.checkId).join(', ') || 'none'
      }`,
    );
  }
  const cells = Object.values(row.cells)
    .filter(
      cell =>
        environment === undefined ||
        cell.environment.toLowerCase() === environment.toLowerCase(),
    )
    .sort((a, b) => a.environment.localeCompare(b.environment));
  if (cells.length === 0) {
    throw new NotFoundError(
      `Check '${
        row.checkId
      }' does not run in environment '${environment}' of ${systemRef}; it runs in: ${Object.keys(
        row.cells,
      ).join(', ')}`,
    );
  }
  return cells.map(cell => ({ ...cell, checkId: row.checkId }));
}

/** A stored run with its time as ISO 8601, for readers that are not programs. */
function runForAgent(run: StoredRun) {
  return {
    startedAt: new Date(run.startedAt).toISOString(),
    durationMs: run.durationMs,
    outcome: run.outcome,
    status: run.status,
    conditions: run.conditions,
    error: run.error,
  };
}

function noUptime(
  windows: readonly SliceUptimeWindow[],
): Record<string, number | null> {
  return Object.fromEntries(windows.map(window => [window, null]));
}

function definedOnly(
  values: Record<string, string | undefined>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
}
