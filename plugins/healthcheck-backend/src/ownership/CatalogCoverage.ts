import type { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import {
  CatalogOwnershipRule,
  CoveringEntity,
  readTargetOwners,
  TargetOwnerCatalog,
} from '@vigil/plugin-healthcheck-node';
import type { CoverageSettings } from './coverageSettings';
import { CoverageCap, CoverageVerdict, judgeCoverage } from './judgeCoverage';

/**
 * The fields of a MaintenanceWindow or ServiceLevelObjective entity that
 * are read to use and judge it; the rest is not fetched.
 * @internal
 */
export const COVERING_ENTITY_FIELDS = [
  'apiVersion',
  'kind',
  'metadata.name',
  'metadata.namespace',
  'spec',
];

/**
 * Where the backend judges what the MaintenanceWindow or
 * ServiceLevelObjective entities it reads may reach (see
 * {@link judgeCoverage}), every time it reads them: with the owners the
 * catalog holds now, read with the plugin's own credentials, so the
 * verdict is the same whoever asks. The catalog module refuses most foreign
 * targets already, but not all: an entity keeps its last accepted version
 * when a later one fails, a system can change owners after a window was
 * accepted, and a target the catalog had not processed yet passes there.
 * Each entity's refusals are logged once per change, naming it and the
 * field.
 * @internal
 */
export class CatalogCoverage {
  readonly #catalog: TargetOwnerCatalog;
  readonly #auth: Pick<AuthService, 'getOwnServiceCredentials'>;
  readonly #logger: Pick<LoggerService, 'warn'>;
  readonly #rule: CatalogOwnershipRule;
  readonly #cap: CoverageCap;
  readonly #describe: (entityRef: string) => string;
  /** What was last logged of each entity with refusals. */
  #reported = new Map<string, string>();

  /** The coverage of one of the two kinds, with its cap and name in messages. */
  static forKind(
    kind: 'MaintenanceWindow' | 'ServiceLevelObjective',
    options: {
      catalog: TargetOwnerCatalog;
      auth: Pick<AuthService, 'getOwnServiceCredentials'>;
      logger: Pick<LoggerService, 'warn'>;
      settings: CoverageSettings;
    },
  ): CatalogCoverage {
    const windows = kind === 'MaintenanceWindow';
    return new CatalogCoverage({
      ...options,
      rule: options.settings.rule,
      cap: windows ? options.settings.windowCap : options.settings.objectiveCap,
      describe: ref =>
        `${windows ? 'Maintenance window' : 'Service-level objective'} ${ref}`,
    });
  }

  constructor(options: {
    catalog: TargetOwnerCatalog;
    auth: Pick<AuthService, 'getOwnServiceCredentials'>;
    logger: Pick<LoggerService, 'warn'>;
    rule: CatalogOwnershipRule;
    cap: CoverageCap;
    /** How an entity reads in a log line: `Maintenance window <ref>`. */
    describe: (entityRef: string) => string;
  }) {
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#logger = options.logger;
    this.#rule = options.rule;
    this.#cap = options.cap;
    this.#describe = options.describe;
  }

  /** What each entity may reach, by its ref. */
  async judge(
    entities: readonly CoveringEntity[],
  ): Promise<Map<string, CoverageVerdict>> {
    const refs = entities.flatMap(entity => entity.targets.map(t => t.ref));
    const owners =
      refs.length === 0
        ? new Map()
        : await readTargetOwners(
            this.#catalog,
            refs,
            await this.#auth.getOwnServiceCredentials(),
          );
    const verdicts = judgeCoverage(entities, owners, {
      rule: this.#rule,
      cap: this.#cap,
    });
    this.#report(verdicts);
    return verdicts;
  }

  #report(verdicts: ReadonlyMap<string, CoverageVerdict>) {
    const reported = new Map<string, string>();
    for (const [ref, { refused }] of verdicts) {
      if (refused.length === 0) {
        continue;
      }
      const text = refused.join('\n');
      reported.set(ref, text);
      if (this.#reported.get(ref) !== text) {
        this.#logger.warn(
          `${this.#describe(ref)} reaches less than it names: ${refused.join(
            '; ',
          )}`,
        );
      }
    }
    this.#reported = reported;
  }
}
