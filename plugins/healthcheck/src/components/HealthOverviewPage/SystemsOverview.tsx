import {
  EmptyState,
  Link,
  Progress,
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import { makeStyles } from '@material-ui/core/styles';
import TextField from '@material-ui/core/TextField';
import Typography from '@material-ui/core/Typography';
import {
  RiArrowLeftSLine,
  RiArrowRightSLine,
  RiPulseLine,
  RiTimerLine,
} from '@remixicon/react';
import {
  HEALTH_STATUSES,
  HealthStatus,
  SystemHealthSummary,
} from '@vigil/plugin-healthcheck-common';
import { Dispatch, useEffect, useState } from 'react';
import useDebounce from 'react-use/esm/useDebounce';
import { POLL_INTERVAL_MS } from '../../hooks';
import {
  presentStatus,
  STALE_ROLLUP_NOTE,
  upstreamCausesOf,
} from '../../status';
import { MaintenanceMarker, maintenanceUntil } from '../Maintenance';
import { formatAttainment, formatBudgetLeft, formatTarget } from '../Slo';
import {
  hasActiveFilters,
  OverviewAction,
  OverviewState,
  PAGE_SIZE,
} from './overviewState';
import { StatusCounts } from './StatusCounts';
import { StatusLabel } from './StatusLabel';
import { useFilterOptions } from './useFilterOptions';
import { useSystemsPage } from './useSystemsPage';

/** How long typing pauses before the search is sent. @internal */
export const SEARCH_DEBOUNCE_MS = 300;

const useStyles = makeStyles(theme => ({
  filters: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    gap: theme.spacing(2),
    marginBottom: theme.spacing(2),
  },
  search: { minWidth: 240, flex: '1 1 240px' },
  select: { minWidth: 180 },
  secondary: {
    display: 'block',
    color: theme.palette.text.secondary,
    fontSize: theme.typography.caption.fontSize,
  },
  reason: {
    fontFamily: 'monospace',
    display: 'block',
    maxWidth: 420,
    overflow: 'hidden',
    textOverflow: 'ellipsis',
    whiteSpace: 'nowrap',
  },
  paging: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'flex-end',
    gap: theme.spacing(1),
    marginTop: theme.spacing(1),
  },
  live: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: theme.spacing(0.5),
    color: theme.palette.text.secondary,
  },
}));

/** Where a system's Health tab is. @internal */
export function healthTabPath(system: {
  namespace: string;
  name: string;
}): string {
  return `/catalog/${encodeURIComponent(
    system.namespace,
  )}/system/${encodeURIComponent(system.name)}/health`;
}

const rank = (status: HealthStatus) => HEALTH_STATUSES.indexOf(status);

function SystemCell(props: { system: SystemHealthSummary }) {
  const classes = useStyles();
  const { system } = props;
  const ref =
    system.namespace === 'default'
      ? system.name
      : `${system.namespace}/${system.name}`;
  return (
    <>
      <Link to={healthTabPath(system)}>{system.title ?? system.name}</Link>
      {(system.title || system.namespace !== 'default') && (
        <span className={classes.secondary}>{ref}</span>
      )}
    </>
  );
}

function WorstEnvironment(props: { system: SystemHealthSummary }) {
  const classes = useStyles();
  const [worst] = [...props.system.environments].sort(
    (a, b) => rank(b.status) - rank(a.status) || a.name.localeCompare(b.name),
  );
  if (!worst) {
    return <>—</>;
  }
  return (
    <>
      <StatusLabel status={worst.status}>
        {worst.name}: {presentStatus(worst.status).label}
      </StatusLabel>
      <span className={classes.secondary}>
        {worst.healthy} of {worst.total} healthy
      </span>
    </>
  );
}

function TopReason(props: { system: SystemHealthSummary }) {
  const classes = useStyles();
  const { reasons, upstream } = props.system;
  const [cause] = upstreamCausesOf(props.system);
  if (cause) {
    return (
      <>
        <span className={classes.reason}>
          Caused by upstream{' '}
          <EntityRefLink entityRef={cause.systemRef} defaultKind="system" />
        </span>
        <span className={classes.secondary}>
          unhealthy in {cause.environment}
        </span>
      </>
    );
  }
  const [top] = [...reasons].sort((a, b) => rank(b.status) - rank(a.status));
  if (top) {
    return (
      <>
        <span className={classes.reason} title={top.display}>
          {top.display}
        </span>
        <span className={classes.secondary}>
          {top.checkId} in {top.environment}
          {reasons.length > 1 ? ` (+${reasons.length - 1} more)` : ''}
        </span>
      </>
    );
  }
  const [problem] = [...upstream].sort(
    (a, b) => rank(b.status) - rank(a.status),
  );
  if (problem) {
    return (
      <span>
        Upstream {problem.systemRef} is{' '}
        {presentStatus(problem.status).label.toLowerCase()}
      </span>
    );
  }
  return <>—</>;
}

/** The system's status, and beside it whether it is in maintenance now. */
function StatusCell(props: { system: SystemHealthSummary }) {
  const { system } = props;
  return (
    <>
      <StatusLabel status={system.status} />
      {maintenanceUntil(system.maintenance) && (
        <div>
          <MaintenanceMarker maintenance={system.maintenance} withEnd />
        </div>
      )}
    </>
  );
}

/** The objective with the least budget left: its budget and attainment, or a dash. */
function SloCell(props: { system: SystemHealthSummary }) {
  const classes = useStyles();
  const { slo } = props.system;
  if (!slo) {
    return <>—</>;
  }
  const { worst } = slo;
  return (
    <>
      <span title={worst.title}>
        {formatBudgetLeft(worst.remainingRatio)}
        {worst.remainingRatio === null ? '' : ' budget left'}
      </span>
      <span className={classes.secondary}>
        {formatAttainment(worst.attainment)} of {formatTarget(worst.target)} in{' '}
        {worst.environment}
        {slo.objectives > 1 ? ` (worst of ${slo.objectives})` : ''}
      </span>
    </>
  );
}

const columns: TableColumn<SystemHealthSummary>[] = [
  {
    title: 'Status',
    field: 'status',
    width: '140px',
    render: system => <StatusCell system={system} />,
  },
  {
    title: 'System',
    field: 'name',
    highlight: true,
    render: system => <SystemCell system={system} />,
  },
  {
    title: 'Healthy',
    field: 'healthy',
    render: system =>
      system.total === 0
        ? 'No checks'
        : `${system.healthy} of ${system.total} healthy`,
  },
  {
    title: 'Worst environment',
    field: 'environments',
    render: system => <WorstEnvironment system={system} />,
  },
  {
    title: 'Top reason',
    field: 'reasons',
    render: system => <TopReason system={system} />,
  },
  {
    title: 'SLO',
    field: 'slo',
    render: system => <SloCell system={system} />,
  },
  {
    title: 'Owner',
    field: 'owner',
    render: system =>
      system.owner ? (
        <EntityRefLink entityRef={system.owner} defaultKind="group" />
      ) : (
        '—'
      ),
  },
];

/** Props of {@link SystemsOverview}. @internal */
export interface SystemsOverviewProps {
  state: OverviewState;
  dispatch: Dispatch<OverviewAction>;
  /** Changing it refetches the page (after a check was created, say). */
  reloadToken?: number;
}

/**
 * Every system with its health: counts per status, filters, a search, and
 * one page of systems at a time (worst first or by name), kept live.
 * @internal
 */
export function SystemsOverview(props: SystemsOverviewProps) {
  const { state, dispatch, reloadToken } = props;
  const { filters, cursors } = state;
  const classes = useStyles();
  const { value, loading, error, retry, live } = useSystemsPage(
    state,
    reloadToken,
  );
  const options = useFilterOptions(value?.items, filters);

  const [searchText, setSearchText] = useState(filters.q);
  useDebounce(
    () => dispatch({ type: 'setFilters', filters: { q: searchText.trim() } }),
    SEARCH_DEBOUNCE_MS,
    [searchText],
  );
  useEffect(() => {
    // "Clear filters" empties the box too.
    setSearchText(text => (text.trim() === filters.q ? text : filters.q));
  }, [filters.q]);

  const filtersActive = hasActiveFilters(filters);
  const pageIndex = cursors.length - 1;

  if (
    value &&
    !filtersActive &&
    pageIndex === 0 &&
    !value.nextCursor &&
    hasNoChecks(value.items, value.counts)
  ) {
    return (
      <EmptyState
        missing="content"
        title="No systems with health checks yet"
        description={
          value.totalCount === 0
            ? 'There are no System entities you may see in the catalog. Register a system, then add a check for it.'
            : `None of the ${value.totalCount} systems in the catalog has a health check. Add one: declare a HealthCheck entity (apiVersion vigil.dev/v1alpha1) next to the system's catalog-info.yaml, with spec.systems naming the system, or create one with "New check" above.`
        }
      />
    );
  }

  return (
    <>
      <StatusCounts
        counts={value?.counts}
        selected={filters.statuses}
        onToggle={status => dispatch({ type: 'toggleStatus', status })}
      />
      <div className={classes.filters}>
        <TextField
          id="healthcheck-overview-search"
          className={classes.search}
          label="Search systems"
          type="search"
          variant="outlined"
          size="small"
          value={searchText}
          onChange={event => setSearchText(event.target.value)}
          placeholder="Name, title or ref"
        />
        <TextField
          id="healthcheck-overview-owner"
          className={classes.select}
          label="Owner"
          select
          variant="outlined"
          size="small"
          SelectProps={{ native: true }}
          InputLabelProps={{ shrink: true }}
          value={filters.owner}
          onChange={event =>
            dispatch({
              type: 'setFilters',
              filters: { owner: event.target.value },
            })
          }
        >
          <option value="">Any owner</option>
          {options.owners.map(owner => (
            <option key={owner} value={owner}>
              {owner}
            </option>
          ))}
        </TextField>
        <TextField
          id="healthcheck-overview-environment"
          className={classes.select}
          label="Environment"
          select
          variant="outlined"
          size="small"
          SelectProps={{ native: true }}
          InputLabelProps={{ shrink: true }}
          value={filters.environment}
          onChange={event =>
            dispatch({
              type: 'setFilters',
              filters: { environment: event.target.value },
            })
          }
        >
          <option value="">Any environment</option>
          {options.environments.map(environment => (
            <option key={environment} value={environment}>
              {environment}
            </option>
          ))}
        </TextField>
        <TextField
          id="healthcheck-overview-sort"
          className={classes.select}
          label="Sort by"
          select
          variant="outlined"
          size="small"
          SelectProps={{ native: true }}
          InputLabelProps={{ shrink: true }}
          value={filters.sort}
          onChange={event =>
            dispatch({
              type: 'setFilters',
              filters: { sort: event.target.value as 'status' | 'name' },
            })
          }
        >
          <option value="status">Status, worst first</option>
          <option value="name">Name</option>
        </TextField>
        {filtersActive && (
          <Button onClick={() => dispatch({ type: 'clearFilters' })}>
            Clear filters
          </Button>
        )}
        <Typography variant="caption" className={classes.live}>
          {live ? (
            <>
              <RiPulseLine size={14} aria-hidden /> Live
            </>
          ) : (
            <>
              <RiTimerLine size={14} aria-hidden /> Refreshed every{' '}
              {POLL_INTERVAL_MS / 1000} s
            </>
          )}
        </Typography>
      </div>
      {renderList()}
    </>
  );

  function renderList() {
    if (error) {
      return (
        <>
          <ResponseErrorPanel
            error={error}
            title="Could not load the systems"
          />
          <Box mt={2}>
            <Button variant="contained" color="primary" onClick={retry}>
              Retry
            </Button>
          </Box>
        </>
      );
    }
    if (!value) {
      return <Progress />;
    }
    const from = pageIndex * PAGE_SIZE + 1;
    const to = pageIndex * PAGE_SIZE + value.items.length;
    return (
      <>
        <Table<SystemHealthSummary>
          title={`${value.totalCount.toLocaleString()} ${
            value.totalCount === 1 ? 'system' : 'systems'
          }`}
          subtitle={`${
            filters.sort === 'status' ? 'Worst first' : 'Sorted by name'
          }${
            value.items.some(system => system.stale)
              ? ` · ${STALE_ROLLUP_NOTE.toLowerCase()}`
              : ''
          }`}
          isLoading={loading}
          options={{
            paging: false,
            search: false,
            sorting: false,
            draggable: false,
            padding: 'dense',
          }}
          columns={columns}
          data={value.items}
          emptyContent={
            <Box p={3} textAlign="center">
              <Typography variant="body1" gutterBottom>
                No systems match these filters.
              </Typography>
              {filtersActive && (
                <Button
                  variant="outlined"
                  onClick={() => dispatch({ type: 'clearFilters' })}
                >
                  Clear filters
                </Button>
              )}
            </Box>
          }
        />
        <nav className={classes.paging} aria-label="Pages of systems">
          <Typography variant="body2" aria-live="polite">
            {value.items.length > 0
              ? `${from.toLocaleString()}–${to.toLocaleString()} of ${value.totalCount.toLocaleString()}`
              : `0 of ${value.totalCount.toLocaleString()}`}
          </Typography>
          <Button
            startIcon={<RiArrowLeftSLine size={18} aria-hidden />}
            disabled={pageIndex === 0}
            onClick={() => dispatch({ type: 'previousPage' })}
            aria-label="Previous page"
          >
            Previous
          </Button>
          <Button
            endIcon={<RiArrowRightSLine size={18} aria-hidden />}
            disabled={!value.nextCursor || loading}
            onClick={() =>
              value.nextCursor &&
              dispatch({ type: 'nextPage', cursor: value.nextCursor })
            }
            aria-label="Next page"
          >
            Next
          </Button>
        </nav>
      </>
    );
  }
}

/** No system has a check: none has slices or a status a check gives. */
function hasNoChecks(
  items: SystemHealthSummary[],
  counts: Record<HealthStatus, number>,
): boolean {
  return (
    items.every(item => item.total === 0) &&
    counts.healthy + counts.degraded + counts.unhealthy + counts.paused === 0
  );
}
