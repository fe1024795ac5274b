import {
  HealthStatus,
  ListSystemsQuery,
} from '@vigil/plugin-healthcheck-common';
import { useReducer } from 'react';

/** Systems per page of the overview. @internal */
export const PAGE_SIZE = 50;

/** The statuses, worst first, as the overview shows them. @internal */
export const OVERVIEW_STATUSES: HealthStatus[] = [
  'unhealthy',
  'degraded',
  'unknown',
  'healthy',
  'paused',
];

/** The overview's filters. @internal */
export interface OverviewFilters {
  statuses: HealthStatus[];
  owner: string;
  environment: string;
  /** The search text as sent: trimmed, applied after a pause in typing. */
  q: string;
  sort: 'status' | 'name';
}

/** The filters and the cursor of each page visited, to go back. @internal */
export interface OverviewState {
  filters: OverviewFilters;
  /** `cursors[i]` fetches page i; the last is the current page. */
  cursors: Array<string | undefined>;
}

/** @internal */
export type OverviewAction =
  | { type: 'toggleStatus'; status: HealthStatus }
  | {
      type: 'setFilters';
      filters: Partial<Omit<OverviewFilters, 'statuses'>>;
    }
  | { type: 'clearFilters' }
  | { type: 'nextPage'; cursor: string }
  | { type: 'previousPage' };

const INITIAL_FILTERS: OverviewFilters = {
  statuses: [],
  owner: '',
  environment: '',
  q: '',
  sort: 'status',
};

/** @internal */
export function overviewReducer(
  state: OverviewState,
  action: OverviewAction,
): OverviewState {
  switch (action.type) {
    case 'toggleStatus': {
      const has = state.filters.statuses.includes(action.status);
      const statuses = OVERVIEW_STATUSES.filter(status =>
        status === action.status
          ? !has
          : state.filters.statuses.includes(status),
      );
      return { filters: { ...state.filters, statuses }, cursors: [undefined] };
    }
    case 'setFilters': {
      const filters = { ...state.filters, ...action.filters };
      if (
        (Object.keys(action.filters) as Array<keyof OverviewFilters>).every(
          key => filters[key] === state.filters[key],
        )
      ) {
        return state;
      }
      return { filters, cursors: [undefined] };
    }
    case 'clearFilters':
      return {
        filters: { ...INITIAL_FILTERS, sort: state.filters.sort },
        cursors: [undefined],
      };
    case 'nextPage':
      return { ...state, cursors: [...state.cursors, action.cursor] };
    case 'previousPage':
      return state.cursors.length > 1
        ? { ...state, cursors: state.cursors.slice(0, -1) }
        : state;
    default:
      return state;
  }
}

/** The overview's filters and paging. @internal */
export function useOverviewState() {
  return useReducer(overviewReducer, {
    filters: INITIAL_FILTERS,
    cursors: [undefined],
  });
}

/** Whether any filter but the sort order is set. @internal */
export function hasActiveFilters(filters: OverviewFilters): boolean {
  return (
    filters.statuses.length > 0 ||
    !!filters.owner ||
    !!filters.environment ||
    !!filters.q
  );
}

/** The `GET /v1/systems` query of the current page. @internal */
export function listQueryOf(state: OverviewState): ListSystemsQuery {
  const { filters, cursors } = state;
  const cursor = cursors[cursors.length - 1];
  return {
    sort: filters.sort,
    limit: PAGE_SIZE,
    ...(filters.statuses.length > 0 && { status: filters.statuses }),
    ...(filters.owner && { owner: filters.owner }),
    ...(filters.environment && { environment: filters.environment }),
    ...(filters.q && { q: filters.q }),
    ...(cursor && { cursor }),
  };
}
