import Typography from '@material-ui/core/Typography';
import { makeStyles, Theme, useTheme } from '@material-ui/core/styles';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { ReactElement, ReactNode } from 'react';
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

/** The x axis every chart shares: time over the range, hours or days as ticks. */
function timeAxisProps(theme: Theme, range: ChartRange) {
  return {
    dataKey: 'time',
    type: 'number',
    scale: 'time',
    domain: [range.from, range.to],
    tickFormatter: tickFormatter(range.to - range.from),
    ...axisProps(theme),
  } as const;
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

/** Props shared by the charts: the range they show. */
export interface ChartRange {
  from: number;
  to: number;
}

/** One status of a status timeline: its key in the points, and how it looks. */
interface StatusBand {
  dataKey: string;
  name: string;
  color: string;
}

/**
 * A status timeline: stacked step areas, each point 1 in one band and 0 in
 * the others, so the chart draws one coloured band over time.
 */
function StatusTimelineChart(
  props: ChartRange & {
    title: string;
    height: number;
    description?: string;
    legend: ReactNode;
    points: object[];
    bands: StatusBand[];
    tooltip: ReactElement;
  },
) {
  const theme = useTheme();
  return (
    <ChartFigure
      title={props.title}
      testId="status-timeline"
      height={props.height}
      description={props.description}
      legend={props.legend}
    >
      <AreaChart
        data={props.points}
        margin={{ top: 4, right: 16, bottom: 0, left: 16 }}
      >
        <XAxis {...timeAxisProps(theme, props)} />
        <YAxis hide domain={[0, 1]} />
        <Tooltip content={props.tooltip} />
        {props.bands.map(band => (
          <Area
            key={band.dataKey}
            dataKey={band.dataKey}
            name={band.name}
            stackId="status"
            type="stepAfter"
            stroke="none"
            fill={band.color}
            fillOpacity={1}
            isAnimationActive={false}
          />
        ))}
      </AreaChart>
    </ChartFigure>
  );
}

/** One line of a latency chart. */
interface LatencyLine {
  dataKey: string;
  name: string;
  color: string;
  /** Drawn dashed (the slowest run, p99), so lines differ by more than colour. */
  dashed?: boolean;
}

/** Latencies over time, as lines with durations on the y axis. */
function LatencyChart(
  props: ChartRange & {
    title: string;
    description?: string;
    points: object[];
    lines: LatencyLine[];
  },
) {
  const theme = useTheme();
  return (
    <ChartFigure
      title={props.title}
      testId="latency-chart"
      height={180}
      description={props.description}
    >
      <LineChart
        data={props.points}
        margin={{ top: 8, right: 16, bottom: 0, left: 16 }}
      >
        <CartesianGrid stroke={theme.palette.divider} strokeDasharray="3 3" />
        <XAxis {...timeAxisProps(theme, props)} />
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
        {props.lines.map(line => (
          <Line
            key={line.dataKey}
            dataKey={line.dataKey}
            name={line.name}
            stroke={line.color}
            strokeDasharray={line.dashed ? '4 3' : undefined}
            dot={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartFigure>
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

/** The status of a slice over time, from its runs. */
export function RunStatusTimeline(
  props: ChartRange & { points: RunStatusPoint[]; bucketed: boolean },
) {
  const theme = useTheme();
  const { points } = props;
  const present = TIMELINE_STATUSES.filter(status =>
    points.some(point => point.status === status),
  );
  return (
    <StatusTimelineChart
      from={props.from}
      to={props.to}
      title="Status timeline"
      height={72}
      description={
        props.bucketed
          ? 'Each band is the worst status of the runs in 5 minutes.'
          : undefined
      }
      legend={<StatusLegend items={present.map(status => ({ status }))} />}
      points={points}
      bands={TIMELINE_STATUSES.map(status => ({
        dataKey: status,
        name: presentStatus(status).label,
        color: statusColor(theme, status),
      }))}
      tooltip={<RunStatusTooltip />}
    />
  );
}

/** Latency of a slice's runs over time. */
export function RunLatencyChart(
  props: ChartRange & { points: RunLatencyPoint[]; bucketed: boolean },
) {
  const theme = useTheme();
  const { bucketed } = props;
  const lines: LatencyLine[] = [
    {
      dataKey: 'latencyMs',
      name: bucketed ? 'Median' : 'Latency',
      color: theme.palette.primary.main,
    },
  ];
  if (bucketed) {
    lines.push({
      dataKey: 'maxLatencyMs',
      name: 'Slowest',
      color: theme.palette.text.secondary,
      dashed: true,
    });
  }
  return (
    <LatencyChart
      from={props.from}
      to={props.to}
      title="Latency"
      description={
        bucketed
          ? 'Median and slowest run per 5 minutes.'
          : 'Duration of each run.'
      }
      points={props.points}
      lines={lines}
    />
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
  return (
    <StatusTimelineChart
      from={props.from}
      to={props.to}
      title="Status timeline (hourly)"
      height={96}
      legend={
        <StatusLegend
          items={HOUR_SERIES.map(s => ({ status: s.status, label: s.label }))}
        />
      }
      points={props.points}
      bands={HOUR_SERIES.map(series => ({
        dataKey: series.key,
        name: series.label,
        color: statusColor(theme, series.status),
      }))}
      tooltip={<HourStatusTooltip />}
    />
  );
}

/** Hourly latency percentiles of an environment. */
export function HourLatencyChart(
  props: ChartRange & { points: HourLatencyPoint[] },
) {
  const theme = useTheme();
  return (
    <LatencyChart
      from={props.from}
      to={props.to}
      title="Latency (hourly percentiles)"
      points={props.points}
      lines={[
        { dataKey: 'p50', name: 'p50', color: theme.palette.primary.main },
        { dataKey: 'p95', name: 'p95', color: theme.palette.secondary.main },
        {
          dataKey: 'p99',
          name: 'p99',
          color: theme.palette.text.secondary,
          dashed: true,
        },
      ]}
    />
  );
}
