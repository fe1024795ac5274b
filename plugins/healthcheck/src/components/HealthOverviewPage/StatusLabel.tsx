import { makeStyles, useTheme } from '@material-ui/core/styles';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { ReactNode } from 'react';
import { presentStatus } from '../../status';

const useStyles = makeStyles(theme => ({
  root: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: theme.spacing(0.5),
    verticalAlign: 'middle',
    // The word must stay whole in narrow table columns.
    whiteSpace: 'nowrap',
  },
  icon: { flexShrink: 0 },
}));

/**
 * A status as icon, colour and word. `children` replace the text; they must
 * still say the status (the colour is never alone).
 * @internal
 */
export function StatusLabel(props: {
  status: HealthStatus;
  size?: number;
  children?: ReactNode;
}) {
  const classes = useStyles();
  const theme = useTheme();
  const { label, Icon, paletteKey } = presentStatus(props.status);
  return (
    <span className={classes.root} data-status={props.status}>
      <Icon
        size={props.size ?? 16}
        color={theme.palette.status[paletteKey]}
        className={classes.icon}
        aria-hidden
      />
      <span>{props.children ?? label}</span>
    </span>
  );
}
