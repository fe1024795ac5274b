import { InputError } from '@backstage/errors';
import type { JudgedCondition } from '@vigil/plugin-healthcheck-common';
import type { ListRunsQuery, RunPage, StoredRun } from '../model';
import {
  HistoryDatabase,
  requireFinite,
  RUN_COLUMNS,
  RunRow,
  RUNS_TABLE,
  SliceRow,
  SLICES_TABLE,
} from './historyDatabase';
import { toHistoryStatus } from './timeWeightedUptime';

/** Runs per page of {@link RunLister.listRuns}. */
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1_000;

type FullRunRow = RunRow & {
  conditions: string | null;
  error_kind: string | null;
  error_message: string | null;
};

/**
 * Raw runs of a slice or a system, newest first, a page at a time behind an
 * opaque cursor (the last run's tick time and slice id).
 */
export class RunLister {
  readonly #history: HistoryDatabase;

  constructor(history: HistoryDatabase) {
    this.#history = history;
  }

  async listRuns(query: ListRunsQuery): Promise<RunPage> {
    requireFinite('from', query.from);
    requireFinite('to', query.to);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new InputError(
        `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${limit}`,
      );
    }
    const cursor =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor);

    let slices: Array<Partial<SliceRow> & { id: string }>;
    if (query.sliceId !== undefined) {
      const row = await this.#history
        .select<SliceRow>(SLICES_TABLE)
        .where('id', query.sliceId)
        .first<SliceRow | undefined>(
          'id',
          'check_id',
          'system_ref',
          'environment',
        );
      slices = [row ?? { id: query.sliceId }];
    } else {
      if (typeof query.systemRef !== 'string' || query.systemRef === '') {
        throw new InputError('listRuns needs a sliceId or a systemRef');
      }
      slices = await this.#history
        .select<SliceRow>(SLICES_TABLE)
        .where('system_ref', query.systemRef.toLowerCase())
        .modify(builder => {
          if (query.environment !== undefined) {
            builder.andWhere('environment', query.environment);
          }
        })
        .select<SliceRow[]>('id', 'check_id', 'system_ref', 'environment');
    }

    // Each slice's newest runs come from its own primary-key range; the
    // pages are merged here, newest first, ties broken by slice id.
    const candidates: Array<{ row: FullRunRow; slice: Partial<SliceRow> }> = [];
    for (const slice of slices) {
      const rows = await this.#history
        .select<FullRunRow>(RUNS_TABLE)
        .where('slice_id', slice.id)
        .andWhere('scheduled_at', '>=', Math.floor(query.from))
        .andWhere('scheduled_at', '<', Math.ceil(query.to))
        .modify(builder => {
          if (cursor) {
            builder.andWhere(
              'scheduled_at',
              slice.id < cursor.sliceId ? '<=' : '<',
              cursor.scheduledAt,
            );
          }
        })
        .whereNotNull('started_at')
        .orderBy('scheduled_at', 'desc')
        .limit(limit + 1)
        .select<FullRunRow[]>([
          ...RUN_COLUMNS,
          'conditions',
          'error_kind',
          'error_message',
        ]);
      for (const row of rows) {
        candidates.push({ row, slice });
      }
    }
    candidates.sort(
      (a, b) =>
        Number(b.row.scheduled_at) - Number(a.row.scheduled_at) ||
        compareStrings(b.row.slice_id, a.row.slice_id),
    );
    const page = candidates.slice(0, limit);
    const last = page[page.length - 1];
    return {
      runs: page.map(({ row, slice }) => toStoredRun(row, slice)),
      nextCursor:
        candidates.length > limit && last
          ? encodeCursor({
              scheduledAt: Number(last.row.scheduled_at),
              sliceId: last.row.slice_id,
            })
          : undefined,
    };
  }
}

const OUTCOMES = new Set(['pass', 'degraded', 'fail']);

function toStoredRun(row: FullRunRow, slice: Partial<SliceRow>): StoredRun {
  let conditions: JudgedCondition[] | undefined;
  if (row.conditions) {
    try {
      conditions = JSON.parse(row.conditions) as JudgedCondition[];
    } catch {
      conditions = undefined;
    }
  }
  return {
    sliceId: row.slice_id,
    checkId: slice.check_id,
    systemRef: slice.system_ref,
    environment: slice.environment,
    scheduledAt: Number(row.scheduled_at),
    startedAt: Number(row.started_at),
    durationMs:
      row.duration_ms === null || row.outcome === null
        ? undefined
        : Number(row.duration_ms),
    outcome:
      row.outcome !== null && OUTCOMES.has(row.outcome)
        ? (row.outcome as StoredRun['outcome'])
        : undefined,
    status: toHistoryStatus(row.status),
    conditions,
    error:
      row.error_kind !== null || row.error_message !== null
        ? {
            kind: row.error_kind ?? 'unknown',
            message: row.error_message ?? '',
          }
        : undefined,
  };
}

function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}

interface RunCursor {
  scheduledAt: number;
  sliceId: string;
}

function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(
    JSON.stringify([cursor.scheduledAt, cursor.sliceId]),
  ).toString('base64url');
}

function decodeCursor(text: string): RunCursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string'
    ) {
      return { scheduledAt: value[0], sliceId: value[1] };
    }
  } catch {
    // Reported below.
  }
  throw new InputError(`Invalid cursor '${text}'`);
}
