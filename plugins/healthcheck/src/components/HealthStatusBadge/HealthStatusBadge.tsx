import { Badge, Focusable, Tooltip, TooltipTrigger } from '@backstage/ui';
import { makeStyles } from '@material-ui/core/styles';
import {
  HealthStatus,
  RollupReason,
  SystemHealthSummary,
  SystemRollup,
  UpstreamProblem,
} from '@vigil/plugin-healthcheck-common';
import { presentStatus, STALE_ROLLUP_NOTE } from '../../status';
import { describeCurrentWindow, maintenanceUntil } from '../Maintenance';
import { hasNoChecks, NO_CHECKS } from './healthPresentation';
import { shortRef } from './shortRef';
import { StatusIcon, useHealthColor } from './StatusIcon';

/**
 * Props of {@link HealthStatusBadge}: a system's rollup, or a status with
 * the reasons and upstream problems to explain it.
 * @public
 */
export type HealthStatusBadgeProps = (
  | {
      rollup: Pick<
        SystemRollup,
        'status' | 'total' | 'reasons' | 'upstream' | 'stale'
      > &
        Pick<SystemHealthSummary, 'maintenance'>;
    }
  | {
      status: HealthStatus;
      reasons?: RollupReason[];
      upstream?: UpstreamProblem[];
    }
) & { size?: 'small' | 'medium' };

const useStyles = makeStyles(theme => ({
  badge: { border: '1px solid', cursor: 'default' },
  list: { margin: 0, paddingLeft: theme.spacing(2) },
  heading: { margin: theme.spacing(0.5, 0, 0), fontWeight: 'bold' },
  display: { fontFamily: 'monospace', overflowWrap: 'anywhere' },
}));

const NO_CHECKS_EXPLANATION = 'This system has no health checks.';

/** What the tooltip says when no check fails and every upstream is fine. */
const QUIET_EXPLANATIONS: Record<HealthStatus, string> = {
  healthy: 'Every check passes.',
  degraded: 'Degraded; no failing condition was reported.',
  unhealthy: 'Unhealthy; no failing condition was reported.',
  unknown: 'No check has run yet.',
  paused: 'Every check is paused.',
};

/**
 * A system's status as icon, colour and word, with a tooltip that says why:
 * each failing check with its environment and failing condition, and the
 * upstream systems that are not healthy. A rollup with no checks reads
 * "No checks"; a stale one (the backend's database is unreachable) has a
 * dashed border and says so in its tooltip; one in maintenance adds
 * " · maintenance" to its word, keeps its status colour, and says until
 * when in its tooltip.
 * @public
 */
export function HealthStatusBadge(props: HealthStatusBadgeProps) {
  const { size = 'small' } = props;
  const { status, noChecks, reasons, upstream, stale, maintenance } =
    'rollup' in props
      ? {
          status: props.rollup.status,
          noChecks: hasNoChecks(props.rollup),
          reasons: props.rollup.reasons,
          upstream: props.rollup.upstream,
          stale: Boolean(props.rollup.stale),
          maintenance: maintenanceUntil(props.rollup.maintenance),
        }
      : {
          status: props.status,
          noChecks: false,
          reasons: props.reasons ?? [],
          upstream: props.upstream ?? [],
          stale: false,
          maintenance: undefined,
        };
  const presentation = noChecks ? NO_CHECKS : presentStatus(status);
  const classes = useStyles();
  const color = useHealthColor(presentation.paletteKey);
  // Said in words; the colour stays the true status's.
  const text = maintenance
    ? `${presentation.label} · maintenance`
    : presentation.label;
  const notes = [
    ...(maintenance ? ['in maintenance'] : []),
    ...(stale ? [STALE_ROLLUP_NOTE.toLowerCase()] : []),
  ];

  return (
    <TooltipTrigger>
      <Focusable>
        <Badge
          size={size}
          role="img"
          aria-label={
            notes.length > 0
              ? `${presentation.label} (${notes.join('; ')})`
              : presentation.label
          }
          tabIndex={0}
          className={classes.badge}
          style={{
            borderColor: color,
            borderStyle: stale ? 'dashed' : 'solid',
          }}
          icon={<StatusIcon presentation={presentation} />}
        >
          {text}
        </Badge>
      </Focusable>
      <Tooltip>
        <HealthExplanation
          quiet={noChecks ? NO_CHECKS_EXPLANATION : QUIET_EXPLANATIONS[status]}
          reasons={reasons}
          upstream={upstream}
        />
        {maintenance && (
          <p className={classes.heading}>
            {describeCurrentWindow(maintenance, Date.now())}. Notifications wait
            for the window to end.
          </p>
        )}
        {stale && <p className={classes.heading}>{STALE_ROLLUP_NOTE}.</p>}
      </Tooltip>
    </TooltipTrigger>
  );
}

function HealthExplanation(props: {
  quiet: string;
  reasons: RollupReason[];
  upstream: UpstreamProblem[];
}) {
  const { quiet, reasons, upstream } = props;
  const classes = useStyles();
  if (reasons.length === 0 && upstream.length === 0) {
    return <>{quiet}</>;
  }
  return (
    <>
      {reasons.length > 0 && (
        <>
          <p className={classes.heading}>Failing checks</p>
          <ul className={classes.list}>
            {reasons.map(reason => (
              <li key={`${reason.checkId}/${reason.environment}`}>
                {shortRef(reason.checkId, 'healthcheck')} in{' '}
                {reason.environment}: {presentStatus(reason.status).label},{' '}
                <span className={classes.display}>{reason.display}</span>
                {reason.inMaintenance ? ' (in maintenance)' : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {upstream.length > 0 && (
        <>
          <p className={classes.heading}>Upstream systems not healthy</p>
          <ul className={classes.list}>
            {upstream.map(problem => (
              <li key={problem.systemRef}>
                {shortRef(problem.systemRef, 'system')}:{' '}
                {presentStatus(problem.status).label}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
