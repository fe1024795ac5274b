import { InfoCard, Progress } from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import Typography from '@material-ui/core/Typography';
import { makeStyles, useTheme } from '@material-ui/core/styles';
import {
  BURN_RATE_WINDOW_NAMES,
  ObjectiveStatus,
} from '@vigil/plugin-healthcheck-common';
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { formatTimestamp, shortCheckName } from '../HealthTab/format';
import { InlineError } from '../HealthTab/InlineError';
import {
  describeAlert,
  describeAttainment,
  describeBudget,
  describeIndicator,
  describeWindow,
  formatAttainment,
  formatBudgetLeft,
  formatBurnRate,
  formatTarget,
} from './sloText';

const CHART_HEIGHT = 140;

const useStyles = makeStyles(theme => ({
  objectives: { margin: 0, padding: 0, listStyle: 'none' },
  objective: {
    padding: theme.spacing(1.5, 0),
    '& + &': { borderTop: `1px solid ${theme.palette.divider}` },
  },
  figures: {
    display: 'flex',
    flexWrap: 'wrap',
    gap: theme.spacing(1, 4),
    margin: theme.spacing(1, 0),
  },
  figure: { margin: 0 },
  big: { fontSize: theme.typography.h5.fontSize, fontWeight: 500 },
  rates: {
    borderCollapse: 'collapse',
    '& th, & td': {
      padding: theme.spacing(0.25, 1.5, 0.25, 0),
      textAlign: 'left',
      fontSize: theme.typography.body2.fontSize,
    },
    '& th': { color: theme.palette.text.secondary, fontWeight: 'normal' },
  },
  alerts: { margin: theme.spacing(0.5, 0), paddingLeft: theme.spacing(2) },
  chart: { margin: theme.spacing(1, 0, 0) },
}));

/**
 * The service-level objectives of a system on its Health tab: per
 * objective, attainment against target, the error budget left, burn rates
 * over 5 m to 3 d, the burn-rate alerts that hold, and the budget's
 * burn-down through the window. Nothing when the system has none.
 * `refreshKey` reloads them (when the system's status changed).
 */
export function SloCard(props: { systemRef: string; refreshKey?: string }) {
  const { systemRef, refreshKey } = props;
  const api = useApi(healthcheckApiRef);
  const classes = useStyles();
  const { value, loading, error, retry } = useAsyncRetry(
    () => api.listSystemObjectives(systemRef),
    [api, systemRef, refreshKey],
  );
  if (error) {
    return (
      <InlineError
        message="Could not load the service-level objectives"
        error={error}
        onRetry={retry}
      />
    );
  }
  if (!value) {
    return loading ? <Progress /> : null;
  }
  if (value.length === 0) {
    return null;
  }
  return (
    <InfoCard
      title="Service-level objectives"
      subheader="Maintenance and paused time left out"
    >
      <ul className={classes.objectives}>
        {value.map(objective => (
          <ObjectiveItem key={objective.ref} objective={objective} />
        ))}
      </ul>
    </InfoCard>
  );
}

function ObjectiveItem(props: { objective: ObjectiveStatus }) {
  const { objective } = props;
  const { status } = objective;
  const classes = useStyles();
  const headingId = `slo-${objective.ref.replace(/[^a-z0-9-]/gi, '-')}`;
  return (
    <li className={classes.objective} aria-labelledby={headingId}>
      <Typography variant="subtitle1" component="h3" id={headingId}>
        {objective.title}
      </Typography>
      <Typography variant="body2" color="textSecondary">
        {describeIndicator(objective.indicator)} of{' '}
        {objective.checkRef
          ? shortCheckName(objective.checkRef)
          : 'every check'}{' '}
        in {objective.environment}, {describeWindow(objective.window)}
      </Typography>
      <div className={classes.figures}>
        <p className={classes.figure}>
          <span className={classes.big}>
            {formatAttainment(status.attainment)}
          </span>{' '}
          of {formatTarget(objective.target)} target
          <Typography variant="caption" display="block" color="textSecondary">
            {describeAttainment(objective)}
          </Typography>
        </p>
        <p className={classes.figure}>
          <span className={classes.big}>
            {formatBudgetLeft(status.errorBudget.remainingRatio)}
          </span>{' '}
          budget left
          <Typography variant="caption" display="block" color="textSecondary">
            {describeBudget(status)}
          </Typography>
        </p>
        <table className={classes.rates}>
          <caption style={{ textAlign: 'left' }}>
            <Typography variant="caption" color="textSecondary">
              Burn rate (1× spends the budget over the window)
            </Typography>
          </caption>
          <thead>
            <tr>
              {BURN_RATE_WINDOW_NAMES.map(name => (
                <th key={name} scope="col">
                  {name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              {BURN_RATE_WINDOW_NAMES.map(name => (
                <td key={name}>{formatBurnRate(status.burnRates[name])}</td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
      {status.alerts.length > 0 ? (
        <ul className={classes.alerts} aria-label="Alerts firing">
          {status.alerts.map(alert => (
            <li key={alert.severity}>
              <Typography variant="body2">
                <strong>{describeAlert(alert)}</strong>
              </Typography>
            </li>
          ))}
        </ul>
      ) : (
        <Typography variant="body2" color="textSecondary">
          No burn-rate alert firing
        </Typography>
      )}
      <BurnDownChart objective={objective} />
    </li>
  );
}

/** The budget left through the window, a line from 100% at its start to now. */
function BurnDownChart(props: { objective: ObjectiveStatus }) {
  const { burnDown, errorBudget } = props.objective.status;
  const classes = useStyles();
  const theme = useTheme();
  if (burnDown.length < 2) {
    return null;
  }
  const points = burnDown.map(point => ({
    time: Date.parse(point.at),
    left: point.remainingRatio * 100,
  }));
  const from = points[0].time;
  const to = points[points.length - 1].time;
  const lowest = Math.min(0, ...points.map(point => point.left));
  const title = `Error budget left through the window: from 100% to ${formatBudgetLeft(
    errorBudget.remainingRatio,
  )}`;
  const axis = {
    stroke: theme.palette.text.secondary,
    tick: { fill: theme.palette.text.secondary, fontSize: 12 },
  };
  return (
    <figure
      className={classes.chart}
      aria-label={title}
      data-testid="slo-burn-down"
    >
      <Typography variant="caption" component="figcaption">
        {title}
      </Typography>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <LineChart data={points} margin={{ top: 8, right: 16, left: 0 }}>
          <CartesianGrid stroke={theme.palette.divider} vertical={false} />
          <XAxis
            dataKey="time"
            type="number"
            scale="time"
            domain={[from, to]}
            tickFormatter={(time: number) =>
              new Date(time).toLocaleDateString(undefined, {
                month: 'short',
                day: 'numeric',
              })
            }
            {...axis}
          />
          <YAxis
            domain={[Math.floor(lowest / 10) * 10, 100]}
            tickFormatter={(left: number) => `${left}%`}
            width={48}
            {...axis}
          />
          <ReferenceLine y={0} stroke={theme.palette.text.secondary} />
          <Tooltip
            labelFormatter={(time: any) => formatTimestamp(Number(time))}
            formatter={(left: any) => [
              `${Math.floor(Number(left))}%`,
              'Budget left',
            ]}
          />
          <Line
            type="linear"
            dataKey="left"
            name="Budget left"
            stroke={theme.palette.primary.main}
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
