import ButtonBase from '@material-ui/core/ButtonBase';
import { makeStyles, useTheme } from '@material-ui/core/styles';
import Typography from '@material-ui/core/Typography';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { presentStatus } from '../../status';
import { OVERVIEW_STATUSES } from './overviewState';

const useStyles = makeStyles(theme => ({
  root: {
    display: 'flex',
    flexWrap: 'wrap',
    gap: theme.spacing(1.5),
    marginBottom: theme.spacing(2),
  },
  tile: {
    display: 'flex',
    alignItems: 'center',
    gap: theme.spacing(1),
    minWidth: 150,
    padding: theme.spacing(1, 2),
    borderRadius: theme.shape.borderRadius,
    border: `1px solid ${theme.palette.divider}`,
    borderLeftWidth: 4,
    backgroundColor: theme.palette.background.paper,
    color: theme.palette.text.primary,
    justifyContent: 'flex-start',
    '&:focus-visible': {
      outline: `2px solid ${theme.palette.primary.main}`,
      outlineOffset: 2,
    },
  },
  selected: {
    backgroundColor: theme.palette.action.selected,
    boxShadow: `inset 0 0 0 1px ${theme.palette.text.primary}`,
  },
  count: { fontWeight: theme.typography.fontWeightBold as number },
}));

/**
 * The number of systems of each status, as toggles that filter the list by
 * status.
 * @internal
 */
export function StatusCounts(props: {
  counts?: Record<HealthStatus, number>;
  selected: HealthStatus[];
  onToggle: (status: HealthStatus) => void;
}) {
  const classes = useStyles();
  const theme = useTheme();
  return (
    <div className={classes.root} role="group" aria-label="Filter by status">
      {OVERVIEW_STATUSES.map(status => {
        const { label, Icon, paletteKey } = presentStatus(status);
        const color = theme.palette.status[paletteKey];
        const selected = props.selected.includes(status);
        return (
          <ButtonBase
            key={status}
            className={`${classes.tile} ${selected ? classes.selected : ''}`}
            style={{ borderLeftColor: color }}
            aria-pressed={selected}
            onClick={() => props.onToggle(status)}
            data-testid={`status-count-${status}`}
          >
            <Icon size={22} color={color} aria-hidden />
            <Typography variant="body2" component="span">
              {label}
            </Typography>
            <Typography variant="h6" component="span" className={classes.count}>
              {props.counts ? props.counts[status].toLocaleString() : '–'}
            </Typography>
          </ButtonBase>
        );
      })}
    </div>
  );
}
