import { Progress, Table, TableColumn } from '@backstage/core-components';
import Typography from '@material-ui/core/Typography';
import { EnvironmentRollup } from '@vigil/plugin-healthcheck-common';
import { formatDuration, formatUptime } from './format';
import { HISTORY_RANGES, HistoryRange } from './historyData';
import { InlineError } from './InlineError';
import { StatusBadge } from './StatusBadge';
import {
  EnvironmentUptime,
  useEnvironmentUptime,
} from './useEnvironmentUptime';

interface UptimeRow {
  name: string;
  rollup?: EnvironmentRollup;
  stats?: EnvironmentUptime[string];
  loading: boolean;
}

function WindowCell(props: { row: UptimeRow; range: HistoryRange }) {
  const { row, range } = props;
  if (row.loading && !row.stats) {
    return (
      <Typography variant="body2" color="textSecondary">
        loading…
      </Typography>
    );
  }
  const stats = row.stats?.[range];
  return (
    <>
      <Typography variant="body2">
        <strong>{formatUptime(stats?.uptime)}</strong> up
      </Typography>
      <Typography variant="caption" color="textSecondary">
        p95 {formatDuration(stats?.p95Ms)}
        {stats ? ` · ${stats.runCount} runs` : ''}
      </Typography>
    </>
  );
}

const columns: TableColumn<UptimeRow>[] = [
  { title: 'Environment', field: 'name', highlight: true },
  {
    title: 'Status',
    field: 'rollup.status',
    render: row =>
      row.rollup ? (
        <>
          <StatusBadge status={row.rollup.status} size="small" />
          <Typography variant="caption" display="block" color="textSecondary">
            {row.rollup.healthy} of {row.rollup.total} healthy
          </Typography>
        </>
      ) : (
        <StatusBadge status="unknown" size="small" />
      ),
  },
  ...HISTORY_RANGES.map(
    ({ range, label }): TableColumn<UptimeRow> => ({
      title: `Last ${label}`,
      field: range,
      sorting: false,
      render: row => <WindowCell row={row} range={range} />,
    }),
  ),
];

/** Props of {@link UptimeCard}. */
export interface UptimeCardProps {
  systemRef: string;
  environmentNames: readonly string[];
  environments: readonly EnvironmentRollup[];
}

/**
 * Per environment: its status, and up-time and p95 response time over the
 * last 24 hours, 7 days and 30 days (time-weighted, from the backend).
 */
export function UptimeCard(props: UptimeCardProps) {
  const { systemRef, environmentNames, environments } = props;
  const { value, loading, error, retry } = useEnvironmentUptime(
    systemRef,
    environmentNames,
  );
  const data: UptimeRow[] = environmentNames.map(name => ({
    name,
    rollup: environments.find(env => env.name === name),
    stats: value?.[name],
    loading,
  }));
  return (
    <>
      {loading && !value && <Progress aria-label="Loading up-time" />}
      {error && (
        <InlineError
          message="Could not load up-time and response time"
          error={error}
          onRetry={retry}
        />
      )}
      <Table<UptimeRow>
        title="Up-time and response time per environment"
        options={{ paging: false, search: false, padding: 'dense' }}
        columns={columns}
        data={data}
      />
    </>
  );
}
