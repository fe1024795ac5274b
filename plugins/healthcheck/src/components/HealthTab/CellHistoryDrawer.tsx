import { Progress } from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import ButtonGroup from '@material-ui/core/ButtonGroup';
import Divider from '@material-ui/core/Divider';
import Drawer from '@material-ui/core/Drawer';
import IconButton from '@material-ui/core/IconButton';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import { RiCloseLine } from '@remixicon/react';
import {
  HourEntry,
  SliceHealth,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import { useMemo, useRef, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { checkTitleOf, useCheckDetails } from './systemChecks';
import { CheckSource } from './CheckSource';
import { formatDuration, formatUptime, shortCheckName } from './format';
import { SelectedCell } from './HealthMatrix';
import {
  HourLatencyChart,
  HourStatusTimeline,
  RunLatencyChart,
  RunStatusTimeline,
} from './HistoryCharts';
import {
  chartHours,
  chartRuns,
  HISTORY_RANGES,
  HistoryRange,
  latestFailingRun,
  loadNewestRuns,
  rangeMs,
  runLatencySummary,
  SLICE_RUNS_PAGE_SIZE,
  statusChanges,
} from './historyData';
import { InlineError } from './InlineError';
import { RelativeTime } from './RelativeTime';
import { RunNowButton } from './RunNowButton';
import { StatusBadge } from './StatusBadge';
import { useStableId } from './useStableId';

const DAY_MS = 24 * 3_600_000;

const useStyles = makeStyles(theme => ({
  paper: {
    width: 'min(760px, 100vw)',
    padding: theme.spacing(2, 3, 4),
  },
  header: {
    display: 'flex',
    alignItems: 'flex-start',
    justifyContent: 'space-between',
    gap: theme.spacing(2),
  },
  facts: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    gap: theme.spacing(1, 3),
    margin: theme.spacing(1, 0),
  },
  section: { marginTop: theme.spacing(2) },
  code: {
    fontSize: theme.typography.body2.fontSize,
    background: theme.palette.background.default,
    color: theme.palette.text.primary,
    border: `1px solid ${theme.palette.divider}`,
    borderRadius: theme.shape.borderRadius,
    padding: theme.spacing(0, 0.5),
    overflowWrap: 'anywhere',
  },
  list: {
    margin: theme.spacing(0.5, 0, 0),
    paddingLeft: theme.spacing(2.5),
    '& > li': { padding: theme.spacing(0.25, 0) },
  },
  changes: {
    margin: theme.spacing(0.5, 0, 0),
    padding: 0,
    listStyle: 'none',
    '& > li': {
      display: 'flex',
      gap: theme.spacing(1),
      alignItems: 'center',
      padding: theme.spacing(0.25, 0),
    },
  },
}));

/** Props of {@link CellHistoryDrawer}. */
export interface CellHistoryDrawerProps {
  system: SystemHealthDetails;
  /** The open cell; the drawer is closed without one. */
  selected?: SelectedCell;
  onClose: () => void;
  /** Changes after "Run now" so the history loads again. */
  refreshKey: number;
  onRunStarted: () => void;
  refreshDelayMs?: number;
}

/** The history of one cell (check x environment), in a drawer. */
export function CellHistoryDrawer(props: CellHistoryDrawerProps) {
  const classes = useStyles();
  const { selected, onClose } = props;
  // Keep showing the last cell while the drawer slides out.
  const lastSelected = useRef(selected);
  if (selected) {
    lastSelected.current = selected;
  }
  const shown = selected ?? lastSelected.current;
  const cell = shown
    ? props.system.checks.find(check => check.checkId === shown.checkId)?.cells[
        shown.environment
      ]
    : undefined;
  return (
    <Drawer
      anchor="right"
      open={Boolean(selected && cell)}
      onClose={onClose}
      classes={{ paper: classes.paper }}
    >
      {shown && cell && <CellHistory {...props} selected={shown} cell={cell} />}
    </Drawer>
  );
}

function CellHistory(
  props: CellHistoryDrawerProps & { selected: SelectedCell; cell: SliceHealth },
) {
  const { system, selected, cell, onClose, refreshKey } = props;
  const classes = useStyles();
  const api = useApi(healthcheckApiRef);
  const titleId = useStableId('healthcheck-cell-history');
  const [range, setRange] = useState<HistoryRange>('24h');
  const { state } = useCheckDetails(selected.checkId);
  const checkTitle = checkTitleOf(state, shortCheckName(selected.checkId));

  // Load again when the system's or the cell's status changes (a signal or
  // a poll brought a new rollup) and after "Run now".
  const liveKey = [
    system.status,
    system.since,
    system.updatedAt,
    cell.status,
    cell.since,
    refreshKey,
  ].join('|');

  // The cell's own runs: the system history in `runs` granularity mixes
  // every check of the environment, too few of this one for a day.
  const runs = useAsyncRetry(async () => {
    const to = Date.now();
    const from = to - DAY_MS;
    const loaded = await loadNewestRuns(cursor =>
      api.listSliceRuns(cell.sliceId, {
        from: new Date(from),
        to: new Date(to),
        limit: SLICE_RUNS_PAGE_SIZE,
        cursor,
      }),
    );
    return { ...loaded, from, to };
  }, [api, cell.sliceId, liveKey]);

  const hours = useAsyncRetry(async () => {
    if (range === '24h') {
      return undefined;
    }
    const to = Date.now();
    const from = to - rangeMs(range);
    const history = await api.getSystemHistory(system.systemRef, {
      environment: selected.environment,
      granularity: 'hours',
      from: new Date(from),
      to: new Date(to),
    });
    return { history, from, to };
  }, [api, system.systemRef, selected.environment, range, liveKey]);

  const runCharts = useMemo(
    () =>
      runs.value
        ? chartRuns(runs.value.runs, runs.value.from, runs.value.to)
        : undefined,
    [runs.value],
  );
  const hourCharts = useMemo(
    () =>
      hours.value
        ? chartHours(
            hours.value.history.items.filter(
              (item): item is HourEntry => 'hourStart' in item,
            ),
          )
        : undefined,
    [hours.value],
  );
  const failing = useMemo(
    () => (runs.value ? latestFailingRun(runs.value.runs) : undefined),
    [runs.value],
  );
  const changes = useMemo(
    () => (runs.value ? statusChanges(runs.value.runs, 8) : []),
    [runs.value],
  );
  const summary = useMemo(
    () => (runs.value ? runLatencySummary(runs.value.runs) : undefined),
    [runs.value],
  );

  return (
    <div role="dialog" aria-labelledby={titleId}>
      <div className={classes.header}>
        <div>
          <Typography variant="h5" component="h2" id={titleId}>
            {checkTitle} in {selected.environment}
          </Typography>
          <Typography variant="caption" color="textSecondary">
            {selected.checkId}
          </Typography>
        </div>
        <IconButton aria-label="Close history" onClick={onClose}>
          <RiCloseLine size={20} aria-hidden="true" />
        </IconButton>
      </div>

      <div className={classes.facts}>
        <StatusBadge status={cell.status} outlined />
        <Typography variant="body2">
          since <RelativeTime value={cell.since} fallback="–" />
        </Typography>
        <Typography variant="body2">
          last run <RelativeTime value={cell.lastRunAt} fallback="not yet" />
        </Typography>
        <Typography variant="body2">
          {formatDuration(cell.lastDurationMs)}
        </Typography>
        <RunNowButton
          checkId={selected.checkId}
          checkTitle={checkTitle}
          onStarted={props.onRunStarted}
          refreshDelayMs={props.refreshDelayMs}
        />
      </div>
      <Typography variant="body2" component="div">
        Source: <CheckSource checkId={selected.checkId} />
      </Typography>

      <Divider className={classes.section} />

      <Box
        className={classes.section}
        display="flex"
        alignItems="center"
        flexWrap="wrap"
        style={{ gap: 16 }}
      >
        <Typography variant="subtitle1" component="h3">
          History
        </Typography>
        <ButtonGroup size="small" aria-label="Range">
          {HISTORY_RANGES.map(option => (
            <Button
              key={option.range}
              variant={option.range === range ? 'contained' : 'outlined'}
              color={option.range === range ? 'primary' : 'default'}
              aria-pressed={option.range === range}
              onClick={() => setRange(option.range)}
            >
              {option.label}
            </Button>
          ))}
        </ButtonGroup>
      </Box>

      {range === '24h' ? (
        <>
          {runs.loading && !runs.value && <Progress />}
          {runs.error && (
            <InlineError
              message="Could not load the runs"
              error={runs.error}
              onRetry={runs.retry}
            />
          )}
          {runs.value && runCharts && (
            <>
              <Typography variant="body2" className={classes.section}>
                {summary?.runCount ?? 0} runs in the last 24 hours · p50{' '}
                {formatDuration(summary?.p50Ms)} · p95{' '}
                {formatDuration(summary?.p95Ms)}
              </Typography>
              {runs.value.truncated && (
                <Typography variant="caption" color="textSecondary">
                  Showing the newest {runs.value.runs.length} runs; older runs
                  of the range are left out.
                </Typography>
              )}
              <RunStatusTimeline
                from={runs.value.from}
                to={runs.value.to}
                points={runCharts.status}
                bucketed={runCharts.bucketed}
              />
              <RunLatencyChart
                from={runs.value.from}
                to={runs.value.to}
                points={runCharts.latency}
                bucketed={runCharts.bucketed}
              />
              {changes.length > 0 && (
                <section className={classes.section}>
                  <Typography variant="subtitle2" component="h4">
                    Status changes
                  </Typography>
                  <ul className={classes.changes}>
                    {changes.map(change => (
                      <li key={change.at}>
                        <StatusBadge status={change.status} size="small" />
                        <Typography variant="body2" component="span">
                          <RelativeTime value={change.at} />
                        </Typography>
                      </li>
                    ))}
                  </ul>
                </section>
              )}
            </>
          )}
        </>
      ) : (
        <>
          <Typography variant="caption" color="textSecondary" component="p">
            Hourly aggregates of the whole {selected.environment} environment of
            this system: the backend aggregates hours per environment, not per
            check.
          </Typography>
          {hours.loading && !hours.value && <Progress />}
          {hours.error && (
            <InlineError
              message="Could not load the hourly history"
              error={hours.error}
              onRetry={hours.retry}
            />
          )}
          {hours.value && hourCharts && (
            <>
              <Typography variant="body2" className={classes.section}>
                {formatUptime(hours.value.history.uptime.uptime)} up · p95{' '}
                {formatDuration(hours.value.history.responseTime.p95Ms)} over{' '}
                {hours.value.history.responseTime.runCount} runs
              </Typography>
              <HourStatusTimeline
                from={hours.value.from}
                to={hours.value.to}
                points={hourCharts.status}
              />
              <HourLatencyChart
                from={hours.value.from}
                to={hours.value.to}
                points={hourCharts.latency}
              />
            </>
          )}
        </>
      )}

      <Divider className={classes.section} />
      <section className={classes.section} aria-label="Latest failing run">
        <Typography variant="subtitle1" component="h3">
          Latest failing run
        </Typography>
        {runs.loading && !runs.value && (
          <Typography variant="body2" color="textSecondary">
            Loading…
          </Typography>
        )}
        {range !== '24h' && runs.error && (
          <InlineError
            message="Could not load the runs"
            error={runs.error}
            onRetry={runs.retry}
          />
        )}
        {failing ? (
          <>
            <Box display="flex" alignItems="center" style={{ gap: 8 }}>
              <StatusBadge status={failing.run.status} size="small" />
              <Typography variant="body2" component="span">
                <RelativeTime value={failing.run.startedAt} />
                {' · '}
                {formatDuration(failing.run.durationMs)}
                {failing.run.outcome ? ` · outcome ${failing.run.outcome}` : ''}
              </Typography>
            </Box>
            <ul className={classes.list}>
              {failing.failures.map((failure, index) => (
                <li key={index}>
                  <code className={classes.code}>{failure}</code>
                </li>
              ))}
            </ul>
          </>
        ) : (
          runs.value && (
            <Typography variant="body2" color="textSecondary">
              {cell.lastReason ? (
                <>
                  No failing run in the last 24 hours. Last reason:{' '}
                  <code className={classes.code}>{cell.lastReason}</code>
                </>
              ) : (
                'No failing run in the last 24 hours.'
              )}
            </Typography>
          )
        )}
      </section>
    </div>
  );
}
