import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { ResponseError } from '@backstage/errors';
import { RunEntry } from '@vigil/plugin-healthcheck-common';

/** Runs per page asked of the backend (its maximum). */
export const SLICE_RUNS_PAGE_SIZE = 1000;
/** Pages loaded at most for one cell history, so one click stays cheap. */
export const SLICE_RUNS_MAX_PAGES = 3;

/** The runs of one slice in a range, newest first. */
export interface SliceRuns {
  runs: RunEntry[];
  /** True when the range had more runs than were loaded (the oldest are left out). */
  truncated: boolean;
}

/**
 * The runs of one slice (one cell of the matrix) in `[from, to)`, from
 * `GET /v1/slices/{sliceId}/runs`, newest first, at most
 * {@link SLICE_RUNS_MAX_PAGES} pages of {@link SLICE_RUNS_PAGE_SIZE}.
 *
 * `HealthcheckApi` has no method for this route yet, and the system history
 * in `runs` granularity returns one page of every check of an environment
 * (100 runs, no cursor in the client), which is too little for one cell; so
 * this asks the route directly, with the app's discovery and fetch APIs.
 */
export async function loadSliceRuns(
  deps: { discoveryApi: DiscoveryApi; fetchApi: FetchApi },
  sliceId: string,
  range: { from: number; to: number },
  options: { pageSize?: number; maxPages?: number } = {},
): Promise<SliceRuns> {
  const pageSize = options.pageSize ?? SLICE_RUNS_PAGE_SIZE;
  const maxPages = options.maxPages ?? SLICE_RUNS_MAX_PAGES;
  const baseUrl = await deps.discoveryApi.getBaseUrl('healthcheck');
  const runs: RunEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const params = new URLSearchParams({
      from: new Date(range.from).toISOString(),
      to: new Date(range.to).toISOString(),
      limit: String(pageSize),
    });
    if (cursor) {
      params.set('cursor', cursor);
    }
    const response = await deps.fetchApi.fetch(
      `${baseUrl}/v1/slices/${encodeURIComponent(
        sliceId,
      )}/runs?${params.toString()}`,
    );
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    const body = (await response.json()) as {
      runs?: RunEntry[];
      items?: RunEntry[];
      nextCursor?: string;
    };
    runs.push(...(body.runs ?? body.items ?? []));
    cursor = body.nextCursor;
    if (!cursor) {
      return { runs, truncated: false };
    }
  }
  return { runs, truncated: true };
}
