import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Typography from '@material-ui/core/Typography';
import { RiErrorWarningLine } from '@remixicon/react';
import { useTheme } from '@material-ui/core/styles';

/** A one-line error of a part of the tab, with a Retry button. */
export function InlineError(props: {
  message: string;
  error?: Error;
  onRetry?: () => void;
}) {
  const theme = useTheme();
  return (
    <Box
      role="alert"
      display="flex"
      alignItems="center"
      flexWrap="wrap"
      style={{ gap: theme.spacing(1) }}
      my={1}
    >
      <RiErrorWarningLine
        size={18}
        color={theme.palette.status.error}
        aria-hidden="true"
      />
      <Typography variant="body2">
        {props.message}
        {props.error ? `: ${props.error.message}` : ''}
      </Typography>
      {props.onRetry && (
        <Button size="small" variant="outlined" onClick={props.onRetry}>
          Retry
        </Button>
      )}
    </Box>
  );
}
