import { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { HEALTHCHECK_KIND } from '@vigil/plugin-healthcheck-common';
import {
  catalogFingerprints,
  compareFingerprints,
  ENVIRONMENTS_KEY,
} from './catalogFingerprints';
import type { Reconciler } from './Reconciler';
import type { SliceStore } from '../model';

/** Above this many changed systems one full pass is cheaper than scoped ones. */
const DEFAULT_FULL_PASS_ABOVE = 500;

/**
 * What a poll reads of each entity: who it is and its etag, which the
 * catalog renews on every change, and the links that tie it to systems.
 * Content is not read: the etag stands for it, and the annotations alone
 * (where Git providers leave five URLs each) were half of a poll's bytes.
 * @internal
 */
export const POLLED_FIELDS = {
  versions: ['kind', 'metadata.name', 'metadata.namespace', 'metadata.etag'],
  members: [
    'kind',
    'metadata.name',
    'metadata.namespace',
    'metadata.etag',
    'spec.system',
  ],
  healthChecks: [
    'kind',
    'metadata.name',
    'metadata.namespace',
    'metadata.etag',
    'spec.systems',
  ],
} as const;

/**
 * What a poll found and did.
 * @internal
 */
export interface CatalogPollOutcome {
  pass: 'none' | 'scoped' | 'full';
  changedSystems: string[];
  /** How long reading the catalog and comparing took, before any pass. */
  detectMs: number;
}

/**
 * Detects catalog changes that affect slices (Backstage 1.55's catalog emits
 * no change events) by comparing per-system fingerprints of entity etags
 * with the ones stored at the last poll, and reconciles only the systems
 * that changed. The stored fingerprints make it work from whichever
 * instance runs the poll.
 * @internal
 */
export class CatalogChangePoller {
  readonly #catalog: CatalogService;
  readonly #auth: AuthService;
  readonly #logger: LoggerService;
  readonly #slices: SliceStore;
  readonly #reconciler: Reconciler;
  readonly #fullPassAbove: number;

  constructor(options: {
    catalog: CatalogService;
    auth: AuthService;
    logger: LoggerService;
    slices: SliceStore;
    reconciler: Reconciler;
    fullPassAbove?: number;
  }) {
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#logger = options.logger;
    this.#slices = options.slices;
    this.#reconciler = options.reconciler;
    this.#fullPassAbove = options.fullPassAbove ?? DEFAULT_FULL_PASS_ABOVE;
  }

  async poll(): Promise<CatalogPollOutcome> {
    const startedAt = performance.now();
    const next = catalogFingerprints(await this.#readSnapshot());
    const previous = await this.#slices.readFingerprints();
    const { environmentsChanged, changedSystems } = compareFingerprints(
      previous,
      next,
    );
    const detectMs = performance.now() - startedAt;
    if (!environmentsChanged && changedSystems.length === 0) {
      return { pass: 'none', changedSystems, detectMs };
    }
    const update = new Map<string, string | undefined>();
    let pass: CatalogPollOutcome['pass'];
    if (environmentsChanged || changedSystems.length > this.#fullPassAbove) {
      const outcome = await this.#reconciler.reconcileAll();
      if (!outcome.ran) {
        // Another pass is converging; look again at the next poll.
        return { pass: 'none', changedSystems, detectMs };
      }
      pass = 'full';
      update.set(ENVIRONMENTS_KEY, next.get(ENVIRONMENTS_KEY));
    } else {
      pass = 'scoped';
    }
    if (pass === 'scoped') {
      await this.#reconciler.reconcileSystems(changedSystems);
    }
    for (const systemRef of changedSystems) {
      update.set(systemRef, next.get(systemRef));
    }
    await this.#slices.writeFingerprints(update);
    this.#logger.debug(
      `Catalog changes in ${changedSystems.length} systems${
        environmentsChanged ? ' and in the Environment entities' : ''
      }: ${pass} pass`,
    );
    return { pass, changedSystems, detectMs };
  }

  async #readSnapshot() {
    const credentials = await this.#auth.getOwnServiceCredentials();
    const read = (
      filter: Record<string, string>[],
      fields: readonly string[],
    ) =>
      this.#catalog
        .getEntities({ filter, fields: [...fields] }, { credentials })
        .then(response => response.items);
    const [systems, members, healthChecks, environments] = await Promise.all([
      read([{ kind: 'System' }], POLLED_FIELDS.versions),
      read(
        [{ kind: 'Component' }, { kind: 'Resource' }],
        POLLED_FIELDS.members,
      ),
      read([{ kind: HEALTHCHECK_KIND }], POLLED_FIELDS.healthChecks),
      read([{ kind: 'Environment' }], POLLED_FIELDS.versions),
    ]);
    return { systems, members, healthChecks, environments };
  }
}
