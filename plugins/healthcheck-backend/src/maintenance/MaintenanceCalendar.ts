import { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { stringifyEntityRef } from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  canonicalEntityRef,
  canonicalEnvironmentName,
  formatSpecProblems,
  isMaintenanceWindowEntity,
  MAINTENANCE_WINDOW_KIND,
  MaintenanceWindowSpec,
  validateMaintenanceWindowSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  CoveringEntity,
  coveringEntityOf,
  maintenanceRecurrenceRules,
  TargetOwnerCatalog,
} from '@vigil/plugin-healthcheck-node';
import {
  CachedRead,
  CatalogCoverage,
  COVERING_ENTITY_FIELDS,
  DEFAULT_COVERAGE_SETTINGS,
} from '../ownership';
import type { CoverageSettings } from '../ownership';
import type {
  DatabaseMaintenanceStore,
  StoredMaintenanceWindow,
} from './DatabaseMaintenanceStore';
import {
  CoveredSlice,
  MaintenanceWindow,
  maintenanceWindowFromSpec,
  windowCovers,
} from './maintenanceWindows';
import { maintenanceSpans } from './occurrences';

/** How long a read of the windows serves before the next read. */
const DEFAULT_REFRESH_MS = 15_000;

/**
 * MaintenanceWindow entities read at most; the rest are left out, with a
 * warning. Each is computed for every slice it may cover.
 */
const MAX_CATALOG_WINDOWS = 5_000;

/** API windows that ended this long ago are still read: their end is told. */
const RECENTLY_ENDED_MS = 24 * 3_600_000;

/**
 * Where the backend reads maintenance windows: the MaintenanceWindow
 * entities of the catalog (read with the plugin's own credentials, as the
 * reconciler reads HealthCheck entities) and the windows made through the
 * API, read together and kept for a few seconds. An entity that does not
 * validate is left out, as its HealthCheck twin would run nowhere. An
 * entity covers only the systems and checks its owner may reach, judged
 * on every read (see `CatalogCoverage`): the others are taken out of its
 * lists, and a window left covering nothing is left out, so it holds no
 * notification, leaves no time out of SLOs and shows nowhere.
 * @internal
 */
export class MaintenanceCalendar {
  readonly #catalog: Pick<CatalogService, 'getEntities'>;
  readonly #coverage: CatalogCoverage;
  readonly #auth: Pick<AuthService, 'getOwnServiceCredentials'>;
  readonly #store: Pick<DatabaseMaintenanceStore, 'list'>;
  readonly #logger: LoggerService;
  readonly #now: () => number;
  readonly #windows: CachedRead<MaintenanceWindow[]>;
  /** Entities already warned about, by ref and problems; cleared with each change. */
  #warned = new Set<string>();

  constructor(options: {
    catalog: Pick<CatalogService, 'getEntities'> & TargetOwnerCatalog;
    auth: Pick<AuthService, 'getOwnServiceCredentials'>;
    store: Pick<DatabaseMaintenanceStore, 'list'>;
    logger: LoggerService;
    /** Whose systems a window may cover, and how many per system; safe defaults. */
    coverage?: CoverageSettings;
    now?: () => number;
    refreshMs?: number;
  }) {
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#store = options.store;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#windows = new CachedRead(() => this.#read(this.#now()), {
      now: this.#now,
      refreshMs: options.refreshMs ?? DEFAULT_REFRESH_MS,
    });
    this.#coverage = CatalogCoverage.forKind('MaintenanceWindow', {
      ...options,
      settings: options.coverage ?? DEFAULT_COVERAGE_SETTINGS,
    });
  }

  /** Every window in force, ahead or recently ended. */
  async windows(): Promise<MaintenanceWindow[]> {
    return this.#windows.get();
  }

  /** Reads again at the next call: a window was made or ended here. */
  invalidate(): void {
    this.#windows.invalidate();
  }

  /** The windows that cover a slice. */
  async covering(slice: CoveredSlice): Promise<MaintenanceWindow[]> {
    return (await this.windows()).filter(window => windowCovers(window, slice));
  }

  /**
   * The maintenance of each check of a system in one environment between
   * `fromMs` and `toMs`, merged: time the SLO math leaves out. Windows made
   * through the API are read back to `fromMs` (an objective's window is
   * days long), not only the recently ended ones the others read.
   */
  async spansBetween(
    scope: { systemRef: string; environment: string },
    fromMs: number,
    toMs: number,
  ): Promise<(checkId: string) => Array<{ startMs: number; endMs: number }>> {
    const [cached, stored] = await Promise.all([
      this.windows(),
      this.#store.list({ endingAfter: fromMs, systemRefs: [scope.systemRef] }),
    ]);
    const windows = [
      ...cached.filter(window => window.source === 'catalog'),
      ...stored.map(apiMaintenanceWindow),
    ];
    return checkId =>
      maintenanceSpans(
        windows.filter(window => windowCovers(window, { ...scope, checkId })),
        fromMs,
        toMs,
      );
  }

  async #read(now: number): Promise<MaintenanceWindow[]> {
    const [fromCatalog, fromApi] = await Promise.all([
      this.#readCatalog(),
      this.#store.list({ endingAfter: now - RECENTLY_ENDED_MS }),
    ]);
    return [...fromCatalog, ...fromApi.map(apiMaintenanceWindow)];
  }

  async #readCatalog(): Promise<MaintenanceWindow[]> {
    const credentials = await this.#auth.getOwnServiceCredentials();
    const { items } = await this.#catalog.getEntities(
      {
        filter: { kind: MAINTENANCE_WINDOW_KIND },
        fields: COVERING_ENTITY_FIELDS,
      },
      { credentials },
    );
    if (items.length > MAX_CATALOG_WINDOWS) {
      this.#logger.warn(
        `The catalog holds ${items.length} MaintenanceWindow entities; only the first ${MAX_CATALOG_WINDOWS} are read`,
      );
    }
    const windows: MaintenanceWindow[] = [];
    const covering: CoveringEntity[] = [];
    for (const entity of items.slice(0, MAX_CATALOG_WINDOWS)) {
      if (!isMaintenanceWindowEntity(entity)) {
        continue;
      }
      const ref = stringifyEntityRef(entity).toLowerCase();
      const namespace = entity.metadata.namespace ?? 'default';
      const problems = formatSpecProblems(
        validateMaintenanceWindowSpec(entity.spec, {
          recurrence: maintenanceRecurrenceRules,
          defaultNamespace: namespace,
        }),
      );
      if (problems.length > 0) {
        const key = `${ref}\n${problems.join('\n')}`;
        if (!this.#warned.has(key)) {
          this.#warned.add(key);
          this.#logger.warn(
            `Maintenance window ${ref} is left out: ${problems.join('; ')}`,
          );
        }
        continue;
      }
      windows.push(
        maintenanceWindowFromSpec(
          ref,
          'catalog',
          entity.spec as MaintenanceWindowSpec,
          namespace,
        ),
      );
      covering.push(coveringEntityOf(entity)!);
    }
    if (this.#warned.size > MAX_CATALOG_WINDOWS) {
      this.#warned = new Set();
    }
    const verdicts = await this.#coverage.judge(covering);
    return windows.flatMap(window => {
      const reached = verdicts.get(window.id)?.admitted ?? new Set();
      const covered = {
        ...window,
        systems: window.systems?.filter(ref => reached.has(ref)),
        checks: window.checks?.filter(ref => reached.has(ref)),
      };
      // A list it names with nothing left in it: it covers nothing.
      return covered.systems?.length === 0 || covered.checks?.length === 0
        ? []
        : [covered];
    });
  }
}

/**
 * A window made through the API as the backend uses it. Its checks are API
 * ids or HealthCheck refs, the latter in canonical form.
 * @internal
 */
export function apiMaintenanceWindow(
  stored: StoredMaintenanceWindow,
): MaintenanceWindow {
  return {
    id: stored.id,
    source: 'api',
    systems: [stored.systemRef.toLowerCase()],
    checks: stored.checks?.map(canonicalCheckId),
    environments: stored.environments?.map(canonicalEnvironmentName),
    reason: stored.reason,
    schedule: { kind: 'once', startMs: stored.startsAt, endMs: stored.endsAt },
  };
}

/** `payments-http` as it is; `HealthCheck:db` as `healthcheck:default/db`. */
export function canonicalCheckId(id: string): string {
  return id.includes(':')
    ? canonicalEntityRef(id, { defaultKind: 'healthcheck' }) ?? id
    : id.toLowerCase();
}
