import { makeStyles, Theme, useTheme } from '@material-ui/core/styles';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { presentStatus } from '../../status';

const useStyles = makeStyles(theme => ({
  badge: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: theme.spacing(0.5),
    whiteSpace: 'nowrap',
    color: theme.palette.text.primary,
    fontWeight: theme.typography.fontWeightMedium as number,
    lineHeight: 1.2,
  },
  outlined: {
    border: '1px solid',
    borderRadius: 999,
    padding: theme.spacing(0.25, 1, 0.25, 0.5),
  },
  icon: { flexShrink: 0 },
}));

const SIZES = { small: 16, medium: 20, large: 28 } as const;

/** The theme colour of a status (`palette.status`), for icons and charts. */
export function statusColor(theme: Theme, status: HealthStatus): string {
  return theme.palette.status[presentStatus(status).paletteKey];
}

/** Props of {@link StatusBadge}. */
export interface StatusBadgeProps {
  status: HealthStatus;
  size?: keyof typeof SIZES;
  /** A pill with a border of the status colour, for the rollup. */
  outlined?: boolean;
  /** Replaces the word (`Healthy`), e.g. with `Healthy in production`; the icon stays. */
  label?: string;
}

/**
 * A status as an icon, its theme colour and its word, never colour alone.
 * The icon is decorative: the word carries the meaning for screen readers.
 */
export function StatusBadge(props: StatusBadgeProps) {
  const { status, size = 'medium', outlined = false, label } = props;
  const classes = useStyles();
  const theme = useTheme();
  const { Icon, label: word } = presentStatus(status);
  const color = statusColor(theme, status);
  const fontSize = {
    large: theme.typography.h5.fontSize,
    medium: theme.typography.body1.fontSize,
    small: theme.typography.body2.fontSize,
  }[size];
  return (
    <span
      className={`${classes.badge} ${outlined ? classes.outlined : ''}`}
      style={{ fontSize, borderColor: outlined ? color : undefined }}
      data-status={status}
    >
      <Icon
        className={classes.icon}
        size={SIZES[size]}
        color={color}
        aria-hidden="true"
        focusable="false"
      />
      <span>{label ?? word}</span>
    </span>
  );
}
