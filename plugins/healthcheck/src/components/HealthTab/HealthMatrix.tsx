import { Table, TableColumn } from '@backstage/core-components';
import ButtonBase from '@material-ui/core/ButtonBase';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import {
  SliceHealth,
  SliceUptimeResponse,
  SliceUptimeWindow,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import { useMemo } from 'react';
import { presentStatus } from '../../status';
import { isInMaintenance, MaintenanceMarker } from '../Maintenance';
import { checkTitleOf, useCheckDetails } from './systemChecks';
import { CheckSource } from './CheckSource';
import {
  describeCellUptime,
  formatCellUptime,
  formatDuration,
  shortCheckName,
} from './format';
import { formatRelative } from '../../format/relativeTime';
import { HISTORY_RANGES } from './historyData';
import { InlineError } from './InlineError';
import { RelativeTime } from './RelativeTime';
import { RunNowButton } from './RunNowButton';
import { StatusBadge } from './StatusBadge';

const useStyles = makeStyles(theme => ({
  cell: {
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'flex-start',
    textAlign: 'left',
    width: '100%',
    padding: theme.spacing(0.5, 1),
    borderRadius: theme.shape.borderRadius,
    border: `1px solid transparent`,
    '&:hover': { background: theme.palette.action.hover },
    '&:focus-visible': {
      outline: `2px solid ${theme.palette.primary.main}`,
      outlineOffset: 1,
    },
  },
  selected: {
    borderColor: theme.palette.primary.main,
    background: theme.palette.action.selected,
  },
  meta: { color: theme.palette.text.secondary, lineHeight: 1.4 },
  uptime: {
    display: 'flex',
    flexWrap: 'wrap',
    gap: theme.spacing(0, 1),
    color: theme.palette.text.secondary,
    lineHeight: 1.4,
    '& strong': { color: theme.palette.text.primary, fontWeight: 500 },
  },
}));

/** A cell's up-time per window; a window without data is null or absent. */
type CellUptime = Partial<Record<SliceUptimeWindow, number | null>>;

/** Where the up-time of the cells is: loading, there, or failed to load. */
type UptimeStatus = 'loading' | 'loaded' | 'failed';

/**
 * The up-time of the cells, loaded apart from the matrix: the state of
 * `useSliceUptimes`.
 */
export interface MatrixUptimes {
  value?: SliceUptimeResponse;
  loading: boolean;
  error?: Error;
  retry: () => void;
}

/** A cell of the matrix, chosen to show its history. */
export interface SelectedCell {
  checkId: string;
  environment: string;
}

interface MatrixRow {
  id: string;
  checkId: string;
  cells: Record<string, SliceHealth>;
}

/** The check's title (once loaded) and its id. */
export function CheckName(props: { checkId: string }) {
  const { state } = useCheckDetails(props.checkId);
  const title = checkTitleOf(state, shortCheckName(props.checkId));
  return (
    <>
      <Typography variant="body2" component="span" style={{ fontWeight: 500 }}>
        {title}
      </Typography>
      {title !== props.checkId && (
        <Typography
          variant="caption"
          color="textSecondary"
          display="block"
          component="span"
        >
          {props.checkId}
        </Typography>
      )}
    </>
  );
}

/** A cell's up-time over 24 hours, 7 days and 30 days, in one short line. */
function CellUptimeLine(props: { uptime?: CellUptime; status: UptimeStatus }) {
  const classes = useStyles();
  if (props.status === 'failed') {
    return null;
  }
  if (props.status === 'loading') {
    return (
      <Typography variant="caption" className={classes.meta}>
        up-time loading…
      </Typography>
    );
  }
  return (
    <Typography variant="caption" component="span" className={classes.uptime}>
      {HISTORY_RANGES.map(({ range, label }) => (
        <span key={range} title={`Up-time over the last ${label}`}>
          {range} <strong>{formatCellUptime(props.uptime?.[range])}</strong>
        </span>
      ))}
    </Typography>
  );
}

function MatrixCell(props: {
  cell: SliceHealth | undefined;
  environment: string;
  checkId: string;
  selected: boolean;
  onOpen: (cell: SelectedCell) => void;
  uptime?: CellUptime;
  uptimeStatus: UptimeStatus;
  /** In a maintenance window now: marked, its status unchanged. */
  inMaintenance: boolean;
}) {
  const { cell, environment, checkId, selected, onOpen, inMaintenance } = props;
  const classes = useStyles();
  const { state } = useCheckDetails(checkId);
  if (!cell) {
    return (
      <Typography
        variant="body2"
        color="textSecondary"
        aria-label={`Does not run in ${environment}`}
      >
        –
      </Typography>
    );
  }
  const title = checkTitleOf(state, shortCheckName(checkId));
  // A button's content is not read out: its name has to say everything.
  const uptimeWords = {
    loading: ', up-time loading',
    loaded: `, ${describeCellUptime(props.uptime)}`,
    failed: '',
  }[props.uptimeStatus];
  const label = `${title} in ${environment}: ${
    presentStatus(cell.status).label
  }${inMaintenance ? ', in maintenance' : ''}, last run ${formatRelative(
    cell.lastRunAt,
  )}, ${formatDuration(cell.lastDurationMs)}${uptimeWords}. Show history`;
  return (
    <ButtonBase
      className={`${classes.cell} ${selected ? classes.selected : ''}`}
      onClick={() => onOpen({ checkId, environment })}
      aria-label={label}
      aria-haspopup="dialog"
      aria-pressed={selected}
      data-testid={`cell-${checkId}-${environment}`}
    >
      <StatusBadge status={cell.status} size="small" />
      {inMaintenance && <MaintenanceMarker />}
      <Typography variant="caption" className={classes.meta}>
        <RelativeTime value={cell.lastRunAt} fallback="no run yet" />
        {' · '}
        {formatDuration(cell.lastDurationMs)}
      </Typography>
      <CellUptimeLine uptime={props.uptime} status={props.uptimeStatus} />
    </ButtonBase>
  );
}

function RunCell(props: {
  checkId: string;
  onRunStarted: () => void;
  refreshDelayMs?: number;
}) {
  const { state } = useCheckDetails(props.checkId);
  return (
    <RunNowButton
      checkId={props.checkId}
      checkTitle={checkTitleOf(state, shortCheckName(props.checkId))}
      onStarted={props.onRunStarted}
      refreshDelayMs={props.refreshDelayMs}
    />
  );
}

/** Props of {@link HealthMatrix}. */
export interface HealthMatrixProps {
  system: SystemHealthDetails;
  selected?: SelectedCell;
  onOpenCell: (cell: SelectedCell) => void;
  uptimes: MatrixUptimes;
  onRunStarted: () => void;
  refreshDelayMs?: number;
  title?: string;
}

/**
 * The environment x check matrix: a row per check, a column per
 * environment; each cell shows status, last run, latency and up-time over
 * 24 hours, 7 days and 30 days (once loaded), and opens the cell's
 * history. Each row has the check's source and "Run now".
 */
export function HealthMatrix(props: HealthMatrixProps) {
  const {
    system,
    selected,
    onOpenCell,
    uptimes,
    onRunStarted,
    refreshDelayMs,
    title,
  } = props;
  const uptimeSlices = uptimes.value?.slices;
  let uptimeStatus: UptimeStatus = 'loading';
  if (uptimeSlices) {
    uptimeStatus = 'loaded';
  } else if (uptimes.error) {
    uptimeStatus = 'failed';
  }

  const columns = useMemo<TableColumn<MatrixRow>[]>(
    () => [
      {
        title: 'Check',
        field: 'checkId',
        highlight: true,
        render: row => <CheckName checkId={row.checkId} />,
      },
      ...system.environmentNames.map(
        (environment): TableColumn<MatrixRow> => ({
          title: environment,
          field: `cells.${environment}.status`,
          sorting: false,
          render: row => (
            <MatrixCell
              cell={row.cells[environment]}
              environment={environment}
              checkId={row.checkId}
              selected={
                selected?.checkId === row.checkId &&
                selected.environment === environment
              }
              onOpen={onOpenCell}
              uptime={
                row.cells[environment] &&
                uptimeSlices?.[row.cells[environment].sliceId]
              }
              uptimeStatus={uptimeStatus}
              inMaintenance={isInMaintenance(
                system.maintenance,
                row.checkId,
                environment,
              )}
            />
          ),
        }),
      ),
      {
        title: 'Source',
        field: 'source',
        sorting: false,
        render: row => <CheckSource checkId={row.checkId} />,
      },
      {
        title: 'Run',
        field: 'run',
        sorting: false,
        render: row => (
          <RunCell
            checkId={row.checkId}
            onRunStarted={onRunStarted}
            refreshDelayMs={refreshDelayMs}
          />
        ),
      },
    ],
    [
      system.environmentNames,
      system.maintenance,
      selected,
      onOpenCell,
      uptimeSlices,
      uptimeStatus,
      onRunStarted,
      refreshDelayMs,
    ],
  );

  const data = system.checks.map(check => ({
    id: check.checkId,
    checkId: check.checkId,
    cells: check.cells,
  }));

  return (
    <>
      {uptimes.error && (
        <InlineError
          message="Could not load the up-time of the cells"
          error={uptimes.error}
          onRetry={uptimes.retry}
        />
      )}
      <Table<MatrixRow>
        title={
          title ??
          `${system.checks.length} ${
            system.checks.length === 1 ? 'check' : 'checks'
          } × ${system.environmentNames.length} ${
            system.environmentNames.length === 1
              ? 'environment'
              : 'environments'
          }`
        }
        subtitle="Select a cell to see its history"
        options={{ paging: false, search: false, padding: 'dense' }}
        columns={columns}
        data={data}
      />
    </>
  );
}
