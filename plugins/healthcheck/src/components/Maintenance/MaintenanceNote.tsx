import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import { RiToolsLine } from '@remixicon/react';
import { SystemMaintenance } from '@vigil/plugin-healthcheck-common';
import { useNow } from '../HealthTab/RelativeTime';
import {
  describeCurrentWindow,
  describeNextWindow,
  maintenanceUntil,
} from './maintenanceText';

const useStyles = makeStyles(theme => ({
  banner: {
    display: 'flex',
    alignItems: 'flex-start',
    gap: theme.spacing(1),
    padding: theme.spacing(1, 2),
    // A neutral frame: maintenance must not read as fine nor as failing;
    // the status beside it keeps its own colour.
    border: `1px dashed ${theme.palette.text.secondary}`,
    borderRadius: theme.shape.borderRadius,
    color: theme.palette.text.primary,
  },
  icon: { flexShrink: 0, marginTop: 2 },
  lines: { margin: 0, padding: 0, listStyle: 'none' },
  marker: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: theme.spacing(0.5),
    padding: theme.spacing(0, 0.75),
    border: `1px dashed ${theme.palette.text.secondary}`,
    borderRadius: 999,
    color: theme.palette.text.primary,
    fontSize: theme.typography.caption.fontSize,
    lineHeight: 1.6,
    whiteSpace: 'nowrap',
  },
}));

/**
 * The maintenance of a system on its Health tab: each window in force,
 * until when and why, and the next one. Nothing when no window covers it.
 * Statuses are not touched: this only says why nobody was paged.
 */
export function MaintenanceBanner(props: {
  maintenance: SystemMaintenance | undefined;
}) {
  const classes = useStyles();
  const now = useNow();
  const { maintenance } = props;
  if (!maintenance || (maintenance.current.length === 0 && !maintenance.next)) {
    return null;
  }
  return (
    <section
      className={classes.banner}
      aria-label="Maintenance"
      data-testid="maintenance-banner"
    >
      <RiToolsLine className={classes.icon} size={20} aria-hidden="true" />
      <ul className={classes.lines}>
        {maintenance.current.map(occurrence => (
          <li key={`${occurrence.windowId}@${occurrence.start}`}>
            <Typography variant="body1" component="span">
              <strong>{describeCurrentWindow(occurrence, now)}</strong>
            </Typography>
          </li>
        ))}
        {maintenance.current.length > 0 && (
          <li>
            <Typography variant="body2" color="textSecondary" component="span">
              Checks in maintenance are still probed and show their true status;
              their notifications wait for the window to end.
            </Typography>
          </li>
        )}
        {maintenance.next && (
          <li>
            <Typography variant="body2" component="span">
              {describeNextWindow(maintenance.next, now)}
            </Typography>
          </li>
        )}
      </ul>
    </section>
  );
}

/**
 * A small "In maintenance" marker beside a status, in words and with an
 * icon; `until` adds when the maintenance ends.
 */
export function MaintenanceMarker(props: {
  maintenance?: Pick<SystemMaintenance, 'current'>;
  /** Show the end of the window in force. */
  withEnd?: boolean;
}) {
  const classes = useStyles();
  const now = useNow();
  const until = props.withEnd ? maintenanceUntil(props.maintenance) : undefined;
  const text = until
    ? describeCurrentWindow({ ...until, reason: undefined }, now)
    : 'In maintenance';
  return (
    <span
      className={classes.marker}
      title={until?.reason ? `${text} — ${until.reason}` : text}
      data-testid="maintenance-marker"
    >
      <RiToolsLine size={12} aria-hidden="true" />
      {text}
    </span>
  );
}
