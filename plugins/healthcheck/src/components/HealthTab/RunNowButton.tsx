import { alertApiRef, useApi } from '@backstage/core-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import Button from '@material-ui/core/Button';
import Tooltip from '@material-ui/core/Tooltip';
import { RiPlayLine } from '@remixicon/react';
import { healthcheckCheckRunPermission } from '@vigil/plugin-healthcheck-common';
import { useEffect, useRef, useState } from 'react';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { useStableId } from './useStableId';

/** Why "Run now" is disabled for a user without the permission. */
export const RUN_PERMISSION_REASON =
  'You need the healthcheck.check.run permission';

/** Props of {@link RunNowButton}. */
export interface RunNowButtonProps {
  checkId: string;
  /** For the button's label and the alert. */
  checkTitle: string;
  /** Called a moment after the runs started, to show their results. */
  onStarted: () => void;
  /** How long after the runs started `onStarted` is called; default 2 s. */
  refreshDelayMs?: number;
}

/**
 * Runs a check now in each of its environments. Disabled, with the reason,
 * for users without `healthcheck.check.run` on this check (a policy may
 * decide per check, by its owner, say).
 */
export function RunNowButton(props: RunNowButtonProps) {
  const { checkId, checkTitle, onStarted, refreshDelayMs = 2000 } = props;
  const permission = usePermission({
    permission: healthcheckCheckRunPermission,
    resourceRef: checkId,
  });
  const api = useApi(healthcheckApiRef);
  const alertApi = useApi(alertApiRef);
  const [running, setRunning] = useState(false);
  const reasonId = useStableId('healthcheck-run-reason');
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      clearTimeout(timer.current);
    };
  }, []);

  const run = async () => {
    setRunning(true);
    try {
      const runs = await api.runCheck(checkId);
      const environments = new Set(runs.map(r => r.environment)).size;
      alertApi.post({
        message: `Run now: started ${runs.length} ${
          runs.length === 1 ? 'run' : 'runs'
        } of ${checkTitle}${
          environments > 0
            ? ` in ${environments} ${
                environments === 1 ? 'environment' : 'environments'
              }`
            : ''
        }`,
        severity: 'success',
        display: 'transient',
      });
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        if (mounted.current) onStarted();
      }, refreshDelayMs);
    } catch (error) {
      alertApi.post({
        message: `Could not run ${checkTitle}: ${
          error instanceof Error ? error.message : String(error)
        }`,
        severity: 'error',
      });
    } finally {
      if (mounted.current) setRunning(false);
    }
  };

  if (permission.loading) {
    return (
      <Button size="small" variant="outlined" disabled>
        Run now
      </Button>
    );
  }

  if (!permission.allowed) {
    return (
      <Tooltip title={RUN_PERMISSION_REASON}>
        {/* A disabled button gets no pointer events; the span shows the tooltip. */}
        <span>
          <Button
            size="small"
            variant="outlined"
            disabled
            aria-describedby={reasonId}
            startIcon={<RiPlayLine size={16} aria-hidden="true" />}
          >
            Run now
          </Button>
          <span id={reasonId} hidden>
            {RUN_PERMISSION_REASON}
          </span>
        </span>
      </Tooltip>
    );
  }

  return (
    <Button
      size="small"
      variant="outlined"
      color="primary"
      disabled={running}
      onClick={run}
      aria-label={`Run ${checkTitle} now`}
      startIcon={<RiPlayLine size={16} aria-hidden="true" />}
    >
      {running ? 'Starting…' : 'Run now'}
    </Button>
  );
}
