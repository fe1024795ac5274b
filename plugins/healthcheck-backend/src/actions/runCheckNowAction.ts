import type {
  BackstageCredentials,
  BackstageServicePrincipal,
  BackstageUserPrincipal,
} from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { NotAllowedError } from '@backstage/errors';
import type { CheckRunner } from '../service/checkRuns';

/**
 * `run-check-now`: one run of a check in each of its systems and
 * environments, off its schedule, as `POST /v1/checks/{id}/run`: the
 * permission `healthcheck.check.run` is checked on the check, the attempt
 * is audited, and the caller's rate limit applies.
 * @internal
 */
export function registerRunCheckNowAction(deps: {
  actionsRegistry: ActionsRegistryService;
  runCheck: CheckRunner;
}) {
  deps.actionsRegistry.register({
    name: 'run-check-now',
    title: 'Run a health check now',
    description: `Runs one of Vigil's health checks now, off its schedule, once in each system and environment it checks, for instance to see whether a fix worked. It answers as soon as the runs have started; their results follow within the check's timeout, in get-check-history and get-system-health.
Needs the permission healthcheck.check.run on the check, and is recorded in the audit log. The check ids of a system are in the answer of get-system-health (checks[].checkId).`,
    attributes: { readOnly: false, idempotent: false, destructive: false },
    schema: {
      input: z =>
        z.object({
          check: z
            .string()
            .describe('The check id, as get-system-health lists it'),
        }),
      output: z =>
        z.object({
          runs: z.array(
            z.object({
              runId: z.string(),
              sliceId: z.string(),
              systemRef: z.string(),
              environment: z.string(),
            }),
          ),
        }),
    },
    action: async ({ input, credentials }) => {
      // The registry refuses anonymous calls already; this says so to the
      // compiler, and to whoever changes that.
      if (!isUserOrService(credentials)) {
        throw new NotAllowedError('Only users and services may run checks');
      }
      const runs = await deps.runCheck(input.check.trim(), credentials, {
        action: 'run-check-now',
      });
      return { output: { runs } };
    },
  });
}

function isUserOrService(
  credentials: BackstageCredentials,
): credentials is BackstageCredentials<
  BackstageUserPrincipal | BackstageServicePrincipal
> {
  const { type } = (credentials as BackstageCredentials<{ type: string }>)
    .principal;
  return type === 'user' || type === 'service';
}
