import type { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  SERVICE_LEVEL_OBJECTIVE_KIND,
  validateServiceLevelObjectiveSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  CoveringEntity,
  coveringEntityOf,
} from '@vigil/plugin-healthcheck-node';
import {
  CachedRead,
  CatalogCoverage,
  CoverageSettings,
  COVERING_ENTITY_FIELDS,
  DEFAULT_COVERAGE_SETTINGS,
} from '../ownership';

/** How long a judgement serves before the next read. */
const DEFAULT_REFRESH_MS = 15_000;

/**
 * Which ServiceLevelObjective entities count at all: those whose owner may
 * name their system and check (`healthcheck.checks.fromCatalog`), within
 * the cap of objectives per system (`healthcheck.slo.maxObjectivesPerSystem`),
 * judged over every objective of the catalog as the plugin reads it, so the
 * same ones count whoever asks (see `CatalogCoverage`). An objective left
 * out is shown nowhere and alerts no one; a warning names it and the field.
 * The judgement is kept for a few seconds, as the maintenance calendar's.
 * @internal
 */
export class ObjectiveAdmission {
  readonly #catalog: Pick<CatalogService, 'getEntities' | 'getEntitiesByRefs'>;
  readonly #auth: Pick<AuthService, 'getOwnServiceCredentials'>;
  readonly #coverage: CatalogCoverage;
  readonly #admitted: CachedRead<ReadonlySet<string>>;

  constructor(options: {
    catalog: Pick<CatalogService, 'getEntities' | 'getEntitiesByRefs'>;
    auth: Pick<AuthService, 'getOwnServiceCredentials'>;
    logger: Pick<LoggerService, 'warn'>;
    /** Whose systems an objective may name, and how many per system; safe defaults. */
    coverage?: CoverageSettings;
    now?: () => number;
    refreshMs?: number;
  }) {
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#admitted = new CachedRead(() => this.#read(), {
      now: options.now ?? Date.now,
      refreshMs: options.refreshMs ?? DEFAULT_REFRESH_MS,
    });
    this.#coverage = CatalogCoverage.forKind('ServiceLevelObjective', {
      ...options,
      settings: options.coverage ?? DEFAULT_COVERAGE_SETTINGS,
    });
  }

  /** The canonical refs of the objectives that count. */
  async admitted(): Promise<ReadonlySet<string>> {
    return this.#admitted.get();
  }

  async #read(): Promise<ReadonlySet<string>> {
    const { items } = await this.#catalog.getEntities(
      {
        filter: { kind: SERVICE_LEVEL_OBJECTIVE_KIND },
        fields: COVERING_ENTITY_FIELDS,
      },
      { credentials: await this.#auth.getOwnServiceCredentials() },
    );
    // Only valid ones compete for a system's places; the others count
    // nowhere anyway.
    const covering: CoveringEntity[] = [];
    for (const entity of items) {
      const problems = validateServiceLevelObjectiveSpec(entity.spec, {
        defaultNamespace: entity.metadata.namespace,
      });
      const judged = problems.length === 0 && coveringEntityOf(entity);
      if (judged) {
        covering.push(judged);
      }
    }
    const verdicts = await this.#coverage.judge(covering);
    return new Set(
      covering
        .filter(entity =>
          entity.targets.every(target =>
            verdicts.get(entity.ref)?.admitted.has(target.ref),
          ),
        )
        .map(entity => entity.ref),
    );
  }
}
