import type {
  AuditorService,
  BackstageCredentials,
  BackstageServicePrincipal,
  BackstageUserPrincipal,
} from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError, toError } from '@backstage/errors';
import {
  healthcheckCheckRunPermission,
  isHeartbeatSpec,
} from '@vigil/plugin-healthcheck-common';
import type { Request } from 'express';
import { actorOf } from './actorOf';
import type { CheckReader } from './checkReader';
import type { CheckRunStarted } from '../model';

/**
 * Where a run was asked for, for the audit log: an HTTP request (whose
 * credentials the auditor reads), or an action, which has none, so the
 * event names the caller itself.
 * @internal
 */
export type CheckRunOrigin = { request: Request } | { action: string };

/**
 * "Run now" of a check as a caller: audited (`check-run`), allowed only if
 * the caller sees the check (else 404) and holds
 * `healthcheck.check.run` on it (else 403), then started; 404 when it has
 * nothing to run. The rate limit's `TooManyRequestsError` passes through.
 * @internal
 */
export type CheckRunner = (
  checkId: string,
  credentials: BackstageCredentials<
    BackstageUserPrincipal | BackstageServicePrincipal
  >,
  origin: CheckRunOrigin,
) => Promise<CheckRunStarted[]>;

/**
 * The {@link CheckRunner} of the REST route and the action alike.
 * @internal
 */
export function createCheckRunner(deps: {
  auditor: AuditorService;
  checks: Pick<CheckReader, 'authorizedCheck'>;
  /**
   * Starts the runs of a check (see `createRunCheckNow`); without it,
   * running checks is not available here.
   */
  runCheck?: (checkId: string, caller: string) => Promise<CheckRunStarted[]>;
}): CheckRunner {
  const { auditor, checks, runCheck } = deps;
  return async (id, credentials, origin) => {
    const auditorEvent = await auditor.createEvent({
      eventId: 'check-run',
      severityLevel: 'low',
      ...('request' in origin
        ? { request: origin.request, meta: { checkId: id } }
        : {
            meta: {
              checkId: id,
              action: origin.action,
              actor: actorOf(credentials),
            },
          }),
    });
    try {
      const check = await checks.authorizedCheck(
        id,
        credentials,
        healthcheckCheckRunPermission,
      );
      if (isHeartbeatSpec(check.spec)) {
        throw new ConflictError(
          `Check '${id}' is a heartbeat check: it runs when its job pings its URL (or misses a ping), not on demand`,
        );
      }
      if (!runCheck) {
        throw new NotFoundError('Running checks is not available here');
      }
      const runs = await runCheck(id, actorOf(credentials));
      if (runs.length === 0) {
        throw new NotFoundError(
          `Check '${id}' has no slices to run: it does not exist, is paused, or names no system in the catalog`,
        );
      }
      await auditorEvent.success({ meta: { checkId: id, runs: runs.length } });
      return runs;
    } catch (error) {
      await auditorEvent.fail({ error: toError(error) });
      throw error;
    }
  };
}
