import {
  HEALTH_STATUSES,
  HealthStatus,
} from '@vigil/plugin-healthcheck-common';
import type { z as zod } from 'zod/v3';

/** The zod the actions registry hands each schema function. */
export type Zod = typeof zod;

/*
 * The shapes the actions answer with. An object's keys not named here are
 * left out of the answer (zod strips them), so these are what agents see.
 */

export const healthStatusSchema = (z: Zod) =>
  z
    .enum(HEALTH_STATUSES as [HealthStatus, ...HealthStatus[]])
    .describe(
      'healthy; degraded; unhealthy; unknown (not probed yet); paused (says nothing of the system)',
    );

const rollupShape = (z: Zod) => ({
  systemRef: z
    .string()
    .describe('Canonical entity ref: system:default/payments'),
  status: healthStatusSchema(z).describe('The worst of its environments'),
  since: z.string().describe('ISO 8601: since when it has had this status'),
  updatedAt: z.string().describe('ISO 8601: when the rollup was computed'),
  healthy: z
    .number()
    .describe('Healthy checks of all not paused, across environments'),
  total: z.number(),
  stale: z
    .boolean()
    .optional()
    .describe(
      'True when the database could not be read and this is the last rollup read',
    ),
  environments: z.array(
    z.object({
      name: z.string(),
      status: healthStatusSchema(z),
      healthy: z.number(),
      total: z.number(),
      since: z.string(),
    }),
  ),
  reasons: z
    .array(
      z.object({
        checkId: z.string(),
        environment: z.string(),
        status: healthStatusSchema(z),
        display: z
          .string()
          .describe(
            'The failing condition as the run judged it, or the probe error',
          ),
        components: z.array(z.string()).optional(),
        inMaintenance: z
          .boolean()
          .optional()
          .describe(
            'In a maintenance window: still failing, its notification held until the window ends',
          ),
      }),
    )
    .describe(
      'Why it is not healthy: each failing check and its failing condition',
    ),
  upstream: z
    .array(z.object({ systemRef: z.string(), status: healthStatusSchema(z) }))
    .describe('Systems it depends on that are not healthy themselves'),
});

const catalogShape = (z: Zod) => ({
  name: z.string(),
  namespace: z.string(),
  title: z.string().optional(),
  owner: z.string().optional().describe("The owner's entity ref"),
});

/** A system in a list: its rollup and what the catalog says of it. */
export const systemSummarySchema = (z: Zod) =>
  z.object({ ...rollupShape(z), ...catalogShape(z) });

/** A system's rollup and its environment x check matrix. */
export const systemDetailsSchema = (z: Zod) =>
  z.object({
    ...rollupShape(z),
    ...catalogShape(z),
    environmentNames: z.array(z.string()),
    checks: z
      .array(
        z.object({
          checkId: z.string(),
          components: z.array(z.string()).optional(),
          cells: z
            .record(
              z.object({
                sliceId: z.string(),
                status: healthStatusSchema(z),
                paused: z.boolean(),
                lastRunAt: z.string().optional(),
                lastDurationMs: z.number().optional(),
                lastReason: z.string().optional(),
                since: z.string().optional(),
              }),
            )
            .describe('Per environment name, the check there'),
        }),
      )
      .describe('One row per check of the system'),
    maintenance: z
      .object({
        current: z.array(maintenanceWindowShape(z)),
        next: maintenanceWindowShape(z).optional(),
        inMaintenance: z
          .array(z.object({ checkId: z.string(), environment: z.string() }))
          .optional(),
      })
      .optional()
      .describe(
        "Maintenance windows over the system's checks: those open now, the next one, and which check in which environment they cover now",
      ),
  });

function maintenanceWindowShape(z: Zod) {
  return z.object({
    windowId: z.string(),
    start: z.string(),
    end: z.string(),
    reason: z.string().optional(),
  });
}

/** One run of a check in one environment. */
export const runSchema = (z: Zod) =>
  z.object({
    startedAt: z.string().describe('ISO 8601'),
    durationMs: z.number().optional(),
    outcome: z.enum(['pass', 'degraded', 'fail']).optional(),
    status: healthStatusSchema(z).describe('The status after the run'),
    conditions: z
      .array(
        z.object({
          condition: z.string(),
          success: z.boolean(),
          display: z.string(),
        }),
      )
      .optional(),
    error: z.object({ kind: z.string(), message: z.string() }).optional(),
  });
