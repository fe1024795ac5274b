import Box from '@material-ui/core/Box';
import { makeStyles } from '@material-ui/core/styles';
import Typography from '@material-ui/core/Typography';
import { RiErrorWarningLine, RiInformationLine } from '@remixicon/react';
import { ReactNode } from 'react';

const useStyles = makeStyles(theme => ({
  root: {
    display: 'flex',
    gap: theme.spacing(1.5),
    padding: theme.spacing(1.5, 2),
    marginBottom: theme.spacing(2),
    borderRadius: theme.shape.borderRadius,
    border: `1px solid ${theme.palette.divider}`,
    color: theme.palette.text.primary,
  },
  info: {
    borderLeft: `4px solid ${theme.palette.info.main}`,
    backgroundColor: theme.palette.infoBackground,
  },
  error: {
    borderLeft: `4px solid ${theme.palette.error.main}`,
    backgroundColor: theme.palette.errorBackground,
  },
  icon: { flexShrink: 0, marginTop: 2 },
}));

/**
 * A boxed message in the theme's info or error colours, with an icon and
 * words (never the colour alone).
 * @internal
 */
export function Notice(props: {
  severity: 'info' | 'error';
  title: string;
  children?: ReactNode;
}) {
  const classes = useStyles();
  const Icon =
    props.severity === 'error' ? RiErrorWarningLine : RiInformationLine;
  return (
    <Box
      className={`${classes.root} ${classes[props.severity]}`}
      role={props.severity === 'error' ? 'alert' : 'note'}
      aria-label={props.title}
    >
      <Icon size={20} aria-hidden className={classes.icon} />
      <Box>
        <Typography variant="subtitle2" component="p">
          {props.title}
        </Typography>
        {props.children && (
          <Typography variant="body2" component="div">
            {props.children}
          </Typography>
        )}
      </Box>
    </Box>
  );
}
