import { InfoCard } from '@backstage/core-components';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import {
  RollupReason,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import { useState } from 'react';
import { STALE_ROLLUP_NOTE, upstreamCausesOf } from '../../status';
import { MaintenanceMarker } from '../Maintenance';
import { checkTitleOf, useCheckDetails } from './systemChecks';
import { shortCheckName } from './format';
import { RelativeTime } from './RelativeTime';
import { StatusBadge } from './StatusBadge';

/**
 * Reasons shown before "Show all": a system with many failing cells would
 * otherwise push the matrix, which says the same per cell, off the screen.
 */
const REASONS_SHOWN = 5;

const useStyles = makeStyles(theme => ({
  summary: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    gap: theme.spacing(3),
  },
  list: {
    margin: theme.spacing(0.5, 0, 0),
    paddingLeft: 0,
    listStyle: 'none',
    '& > li': {
      display: 'flex',
      flexWrap: 'wrap',
      alignItems: 'baseline',
      gap: theme.spacing(1),
      padding: theme.spacing(0.5, 0),
    },
  },
  display: {
    fontFamily: theme.typography.fontFamily,
    fontSize: theme.typography.body2.fontSize,
    background: theme.palette.background.default,
    color: theme.palette.text.primary,
    border: `1px solid ${theme.palette.divider}`,
    borderRadius: theme.shape.borderRadius,
    padding: theme.spacing(0, 0.5),
    overflowWrap: 'anywhere',
  },
  section: { marginTop: theme.spacing(2) },
}));

function ReasonCheckName(props: { checkId: string }) {
  const { state } = useCheckDetails(props.checkId);
  return (
    <strong title={props.checkId}>
      {checkTitleOf(state, shortCheckName(props.checkId))}
    </strong>
  );
}

function ReasonItem(props: { reason: RollupReason }) {
  const { reason } = props;
  const classes = useStyles();
  return (
    <li>
      <StatusBadge status={reason.status} size="small" />
      <ReasonCheckName checkId={reason.checkId} />
      <span>in {reason.environment}:</span>
      <code className={classes.display}>{reason.display}</code>
      {reason.inMaintenance && <MaintenanceMarker />}
    </li>
  );
}

/** Props of {@link RollupCard}. */
export interface RollupCardProps {
  system: SystemHealthDetails;
  /** Whether updates arrive by signals (else the tab polls). */
  live: boolean;
}

/**
 * The system's rollup: status, k of n healthy, since when, why, and which
 * systems it depends on are not healthy.
 */
export function RollupCard(props: RollupCardProps) {
  const { system, live } = props;
  const classes = useStyles();
  const [allReasons, setAllReasons] = useState(false);
  const causes = upstreamCausesOf(system);
  const reasons =
    allReasons || system.reasons.length <= REASONS_SHOWN
      ? system.reasons
      : system.reasons.slice(0, REASONS_SHOWN);
  return (
    <InfoCard
      title="Health"
      subheader={
        live
          ? 'Live: updates as checks change status'
          : 'Refreshes every 30 seconds'
      }
    >
      <Box className={classes.summary}>
        <StatusBadge status={system.status} size="large" outlined />
        <Typography variant="body1">
          <strong>
            {system.healthy} of {system.total}
          </strong>{' '}
          healthy{' '}
          <Typography component="span" variant="body2" color="textSecondary">
            (checks × environments, paused ones left out)
          </Typography>
        </Typography>
        <Typography variant="body1">
          Since <RelativeTime value={system.since} />
        </Typography>
        {system.stale && (
          <Typography variant="caption" color="textSecondary" role="status">
            {STALE_ROLLUP_NOTE} (as of <RelativeTime value={system.updatedAt} />
            )
          </Typography>
        )}
      </Box>

      {system.reasons.length > 0 && (
        <section className={classes.section} aria-labelledby="health-reasons">
          <Typography variant="subtitle2" component="h3" id="health-reasons">
            Why
          </Typography>
          <ul className={classes.list}>
            {reasons.map(reason => (
              <ReasonItem
                key={`${reason.checkId}\u0000${reason.environment}`}
                reason={reason}
              />
            ))}
          </ul>
          {system.reasons.length > REASONS_SHOWN && (
            <Button
              size="small"
              color="primary"
              aria-expanded={allReasons}
              onClick={() => setAllReasons(shown => !shown)}
            >
              {allReasons
                ? 'Show fewer reasons'
                : `Show all ${system.reasons.length} reasons`}
            </Button>
          )}
        </section>
      )}

      {causes.length > 0 && (
        <section className={classes.section} aria-labelledby="health-cause">
          <Typography variant="subtitle2" component="h3" id="health-cause">
            Caused by upstream
          </Typography>
          <ul className={classes.list}>
            {causes.map(cause => (
              <li key={cause.environment}>
                <StatusBadge status="unhealthy" size="small" />
                <span>in {cause.environment}:</span>
                <EntityRefLink
                  entityRef={cause.systemRef}
                  defaultKind="system"
                />
                <span>is unhealthy</span>
              </li>
            ))}
          </ul>
        </section>
      )}

      {system.upstream.length > 0 && (
        <section className={classes.section} aria-labelledby="health-upstream">
          <Typography variant="subtitle2" component="h3" id="health-upstream">
            Upstream systems that are not healthy
          </Typography>
          <ul className={classes.list}>
            {system.upstream.map(upstream => (
              <li key={upstream.systemRef}>
                <StatusBadge status={upstream.status} size="small" />
                <EntityRefLink
                  entityRef={upstream.systemRef}
                  defaultKind="system"
                />
              </li>
            ))}
          </ul>
        </section>
      )}
    </InfoCard>
  );
}
