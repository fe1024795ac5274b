import { Table, TableColumn } from '@backstage/core-components';
import ButtonBase from '@material-ui/core/ButtonBase';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import {
  SliceHealth,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import { useMemo } from 'react';
import { presentStatus } from '../../status';
import { checkTitleOf, useCheckDetails } from './checkDetailsStore';
import { CheckSource } from './CheckSource';
import { formatDuration, formatRelative, shortCheckName } from './format';
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
}));

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

function MatrixCell(props: {
  cell: SliceHealth | undefined;
  environment: string;
  checkId: string;
  selected: boolean;
  onOpen: (cell: SelectedCell) => void;
}) {
  const { cell, environment, checkId, selected, onOpen } = props;
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
  const label = `${title} in ${environment}: ${
    presentStatus(cell.status).label
  }, last run ${formatRelative(cell.lastRunAt)}, ${formatDuration(
    cell.lastDurationMs,
  )}. Show history`;
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
      <Typography variant="caption" className={classes.meta}>
        <RelativeTime value={cell.lastRunAt} fallback="no run yet" />
        {' · '}
        {formatDuration(cell.lastDurationMs)}
      </Typography>
    </ButtonBase>
  );
}

function RunCell(props: {
  checkId: string;
  permission: { loading: boolean; allowed: boolean };
  onRunStarted: () => void;
  refreshDelayMs?: number;
}) {
  const { state } = useCheckDetails(props.checkId);
  return (
    <RunNowButton
      checkId={props.checkId}
      checkTitle={checkTitleOf(state, shortCheckName(props.checkId))}
      permission={props.permission}
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
  permission: { loading: boolean; allowed: boolean };
  onRunStarted: () => void;
  refreshDelayMs?: number;
  title?: string;
}

/**
 * The environment x check matrix: a row per check, a column per
 * environment; each cell shows status, last run and latency, and opens
 * the cell's history. Each row has the check's source and "Run now".
 */
export function HealthMatrix(props: HealthMatrixProps) {
  const {
    system,
    selected,
    onOpenCell,
    permission,
    onRunStarted,
    refreshDelayMs,
    title,
  } = props;

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
            permission={permission}
            onRunStarted={onRunStarted}
            refreshDelayMs={refreshDelayMs}
          />
        ),
      },
    ],
    [
      system.environmentNames,
      selected,
      onOpenCell,
      permission,
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
    <Table<MatrixRow>
      title={
        title ??
        `${system.checks.length} ${
          system.checks.length === 1 ? 'check' : 'checks'
        } × ${system.environmentNames.length} ${
          system.environmentNames.length === 1 ? 'environment' : 'environments'
        }`
      }
      subtitle="Select a cell to see its history"
      options={{ paging: false, search: false, padding: 'dense' }}
      columns={columns}
      data={data}
    />
  );
}
