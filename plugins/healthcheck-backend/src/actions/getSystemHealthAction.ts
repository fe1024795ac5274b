import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import type { SystemHealthReads } from '../service/systemHealthReads';
import { systemDetailsSchema } from './schemas';
import { systemRefOf } from './systemRefOf';

/**
 * `get-system-health`: a system's rollup, environments, reasons, upstream
 * problems and check matrix, as `GET /v1/systems/{namespace}/{name}`.
 * @internal
 */
export function registerGetSystemHealthAction(deps: {
  actionsRegistry: ActionsRegistryService;
  reads: Pick<SystemHealthReads, 'systemDetails'>;
}) {
  deps.actionsRegistry.register({
    name: 'get-system-health',
    title: 'Get system health',
    description: `The health of one System in the software catalog, from Vigil's health checks.
Answers its status (the worst of its environments), each environment's status, the reasons it is not healthy (each failing check and its failing condition), the upstream systems it depends on that are unhealthy themselves, and every check of the system per environment (its last run and reason).
Statuses from best to worst: paused, healthy, unknown (not probed yet), degraded, unhealthy.
A system you may not read in the catalog is answered as one that does not exist.`,
    attributes: { readOnly: true, idempotent: true, destructive: false },
    schema: {
      input: z =>
        z.object({
          system: z
            .string()
            .describe(
              'The System: its name (payments), namespace/name (default/payments) or entity ref (system:default/payments)',
            ),
        }),
      output: systemDetailsSchema,
    },
    action: async ({ input, credentials }) => ({
      output: await deps.reads.systemDetails(
        systemRefOf(input.system),
        credentials,
      ),
    }),
  });
}
