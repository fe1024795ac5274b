import Typography from '@material-ui/core/Typography';
import { makeStyles, Theme, useTheme } from '@material-ui/core/styles';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { ReactNode } from 'react';
import {
  Area,
  AreaChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { presentStatus } from '../../status';
import { formatDuration, formatTimestamp, formatUptime } from './format';
import {
  HourLatencyPoint,
  HourStatusPoint,
  RunLatencyPoint,
  RunStatusPoint,
  TIMELINE_STATUSES,
} from './historyData';
import { StatusBadge, statusColor } from './StatusBadge';

const useStyles = makeStyles(theme => ({
  figure: { margin: theme.spacing(2, 0, 1) },
  legend: {
    display: 'flex',
    flexWrap: 'wrap',
    gap: theme.spacing(2),
    margin: theme.spacing(0.5, 0, 0),
    padding: 0,
    listStyle: 'none',
  },
  tooltip: {
    background: theme.palette.background.paper,
    color: theme.palette.text.primary,
    border: `1px solid ${theme.palette.divider}`,
    borderRadius: theme.shape.borderRadius,
    padding: theme.spacing(0.75, 1),
    boxShadow: theme.shadows[2],
    fontSize: theme.typography.body2.fontSize,
  },
}));

function tickFormatter(spanMs: number) {
  return (value: number) => {
    const date = new Date(value);
    return spanMs <= 36 * 3_600_000
      ? date.toLocaleTimeString(undefined, {
          hour: '2-digit',
          minute: '2-digit',
        })
      : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  };
}

function axisProps(theme: Theme) {
  return {
    stroke: theme.palette.text.secondary,
    tick: { fill: theme.palette.text.secondary, fontSize: 12 },
  };
}

function ChartFigure(props: {
  title: string;
  testId: string;
  height: number;
  children: ReactNode;
  legend?: ReactNode;
  description?: string;
}) {
  const classes = useStyles();
  return (
    <figure
      className={classes.figure}
      data-testid={props.testId}
      aria-label={props.title}
    >
      <Typography variant="subtitle2" component="figcaption">
        {props.title}
      </Typography>
      {props.description && (
        <Typography variant="caption" color="textSecondary" component="p">
          {props.description}
        </Typography>
      )}
      <ResponsiveContainer width="100%" height={props.height}>
        {props.children as any}
      </ResponsiveContainer>
      {props.legend}
    </figure>
  );
}

/** The legend of a timeline: icon, colour and word of each status. */
function StatusLegend(props: {
  items: Array<{ status: HealthStatus; label?: string }>;
}) {
  const classes = useStyles();
  return (
    <ul className={classes.legend} aria-label="Legend">
      {props.items.map(item => (
        <li key={item.label ?? item.status}>
          <StatusBadge status={item.status} size="small" label={item.label} />
        </li>
      ))}
    </ul>
  );
}

function RunStatusTooltip(props: { active?: boolean; payload?: any[] }) {
  const classes = useStyles();
  const point: RunStatusPoint | undefined = props.payload?.[0]?.payload;
  if (!props.active || !point) {
    return null;
  }
  return (
    <div className={classes.tooltip}>
      <div>{formatTimestamp(point.time)}</div>
      <StatusBadge status={point.status} size="small" />
      {point.runCount > 1 && <div>worst of {point.runCount} runs</div>}
    </div>
  );
}

/** Props shared by the charts: the range they show. */
export interface ChartRange {
  from: number;
  to: number;
}

/** The status of a slice over time, from its runs. */
export function RunStatusTimeline(
  props: ChartRange & { points: RunStatusPoint[]; bucketed: boolean },
) {
  const theme = useTheme();
  const { from, to, points } = props;
  const present = TIMELINE_STATUSES.filter(status =>
    points.some(point => point.status === status),
  );
  return (
    <ChartFigure
      title="Status timeline"
      testId="status-timeline"
      height={72}
      description={
        props.bucketed
          ? 'Each band is the worst status of the runs in 5 minutes.'
          : undefined
      }
      legend={<StatusLegend items={present.map(status => ({ status }))} />}
    >
      <AreaChart
        data={points}
        margin={{ top: 4, right: 16, bottom: 0, left: 16 }}
      >
        <XAxis
          dataKey="time"
          type="number"
          scale="time"
          domain={[from, to]}
          tickFormatter={tickFormatter(to - from)}
          {...axisProps(theme)}
        />
        <YAxis hide domain={[0, 1]} />
        <Tooltip content={<RunStatusTooltip />} />
        {TIMELINE_STATUSES.map(status => (
          <Area
            key={status}
            dataKey={status}
            name={presentStatus(status).label}
            stackId="status"
            type="stepAfter"
            stroke="none"
            fill={statusColor(theme, status)}
            fillOpacity={1}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    </ChartFigure>
  );
}

/** Latency of a slice's runs over time. */
export function RunLatencyChart(
  props: ChartRange & { points: RunLatencyPoint[]; bucketed: boolean },
) {
  const theme = useTheme();
  const { from, to, points, bucketed } = props;
  return (
    <ChartFigure
      title="Latency"
      testId="latency-chart"
      height={180}
      description={
        bucketed
          ? 'Median and slowest run per 5 minutes.'
          : 'Duration of each run.'
      }
    >
      <LineChart
        data={points}
        margin={{ top: 8, right: 16, bottom: 0, left: 16 }}
      >
        <CartesianGrid stroke={theme.palette.divider} strokeDasharray="3 3" />
        <XAxis
          dataKey="time"
          type="number"
          scale="time"
          domain={[from, to]}
          tickFormatter={tickFormatter(to - from)}
          {...axisProps(theme)}
        />
        <YAxis
          tickFormatter={(value: number) => formatDuration(value)}
          width={64}
          {...axisProps(theme)}
        />
        <Tooltip
          labelFormatter={(value: any) => formatTimestamp(Number(value))}
          formatter={(value: any) => formatDuration(Number(value))}
          contentStyle={{
            background: theme.palette.background.paper,
            borderColor: theme.palette.divider,
            color: theme.palette.text.primary,
          }}
        />
        <Line
          dataKey="latencyMs"
          name={bucketed ? 'Median' : 'Latency'}
          stroke={theme.palette.primary.main}
          dot={false}
          isAnimationActive={false}
        />
        <Legend wrapperStyle={{ color: theme.palette.text.primary }} />
        {bucketed && (
          <Line
            dataKey="maxLatencyMs"
            name="Slowest"
            stroke={theme.palette.text.secondary}
            strokeDasharray="4 3"
            dot={false}
            isAnimationActive={false}
          />
        )}
      </LineChart>
    </ChartFigure>
  );
}

const HOUR_SERIES: Array<{
  key: keyof Omit<HourStatusPoint, 'time' | 'uptime'>;
  status: HealthStatus;
  label: string;
}> = [
  { key: 'up', status: 'healthy', label: 'Up (healthy or degraded)' },
  { key: 'down', status: 'unhealthy', label: 'Down (unhealthy)' },
  { key: 'unknown', status: 'unknown', label: 'Unknown' },
  { key: 'paused', status: 'paused', label: 'Paused' },
];

function HourStatusTooltip(props: { active?: boolean; payload?: any[] }) {
  const classes = useStyles();
  const point: HourStatusPoint | undefined = props.payload?.[0]?.payload;
  if (!props.active || !point) {
    return null;
  }
  return (
    <div className={classes.tooltip}>
      <div>{formatTimestamp(point.time)}</div>
      <div>Up-time {formatUptime(point.uptime)}</div>
      {HOUR_SERIES.filter(series => point[series.key] > 0).map(series => (
        <div key={series.key}>
          <StatusBadge
            status={series.status}
            size="small"
            label={`${series.label}: ${Math.round(point[series.key] * 100)}%`}
          />
        </div>
      ))}
    </div>
  );
}

/** Hourly shares of up, down, unknown and paused time of an environment. */
export function HourStatusTimeline(
  props: ChartRange & { points: HourStatusPoint[] },
) {
  const theme = useTheme();
  const { from, to, points } = props;
  return (
    <ChartFigure
      title="Status timeline (hourly)"
      testId="status-timeline"
      height={96}
      legend={
        <StatusLegend
          items={HOUR_SERIES.map(s => ({ status: s.status, label: s.label }))}
        />
      }
    >
      <AreaChart
        data={points}
        margin={{ top: 4, right: 16, bottom: 0, left: 16 }}
      >
        <XAxis
          dataKey="time"
          type="number"
          scale="time"
          domain={[from, to]}
          tickFormatter={tickFormatter(to - from)}
          {...axisProps(theme)}
        />
        <YAxis hide domain={[0, 1]} />
        <Tooltip content={<HourStatusTooltip />} />
        {HOUR_SERIES.map(series => (
          <Area
            key={series.key}
            dataKey={series.key}
            name={series.label}
            stackId="status"
            type="stepAfter"
            stroke="none"
            fill={statusColor(theme, series.status)}
            fillOpacity={1}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    </ChartFigure>
  );
}

/** Hourly latency percentiles of an environment. */
export function HourLatencyChart(
  props: ChartRange & { points: HourLatencyPoint[] },
) {
  const theme = useTheme();
  const { from, to, points } = props;
  const lines = [
    { key: 'p50', name: 'p50', color: theme.palette.primary.main },
    { key: 'p95', name: 'p95', color: theme.palette.secondary.main },
    { key: 'p99', name: 'p99', color: theme.palette.text.secondary },
  ];
  return (
    <ChartFigure
      title="Latency (hourly percentiles)"
      testId="latency-chart"
      height={180}
    >
      <LineChart
        data={points}
        margin={{ top: 8, right: 16, bottom: 0, left: 16 }}
      >
        <CartesianGrid stroke={theme.palette.divider} strokeDasharray="3 3" />
        <XAxis
          dataKey="time"
          type="number"
          scale="time"
          domain={[from, to]}
          tickFormatter={tickFormatter(to - from)}
          {...axisProps(theme)}
        />
        <YAxis
          tickFormatter={(value: number) => formatDuration(value)}
          width={64}
          {...axisProps(theme)}
        />
        <Tooltip
          labelFormatter={(value: any) => formatTimestamp(Number(value))}
          formatter={(value: any) => formatDuration(Number(value))}
          contentStyle={{
            background: theme.palette.background.paper,
            borderColor: theme.palette.divider,
            color: theme.palette.text.primary,
          }}
        />
        <Legend wrapperStyle={{ color: theme.palette.text.primary }} />
        {lines.map(line => (
          <Line
            key={line.key}
            dataKey={line.key}
            name={line.name}
            stroke={line.color}
            strokeDasharray={line.key === 'p99' ? '4 3' : undefined}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartFigure>
  );
}
