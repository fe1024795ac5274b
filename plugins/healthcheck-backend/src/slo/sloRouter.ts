import type {
  BackstageCredentials,
  HttpAuthService,
} from '@backstage/backend-plugin-api';
import { stringifyEntityRef } from '@backstage/catalog-model';
import { InputError, NotFoundError } from '@backstage/errors';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  canonicalEntityRef,
  canonicalEnvironmentName,
} from '@vigil/plugin-healthcheck-common';
import type express from 'express';
import { createTypedRouter } from '../schema/createTypedRouter';
import { budgetBurnDown, BurnDownPoint } from './budgetBurnDown';
import {
  BurnRateAlertRule,
  burnRateConditionHolds,
  DEFAULT_BURN_RATE_ALERT_RULES,
} from './burnRateAlerts';
import { CatalogObjective, loadCatalogObjectives } from './catalogObjectives';
import type { ObjectiveAdmission } from './ObjectiveAdmission';
import { computeSlo, SloStatus } from './computeSlo';
import { readObjectiveSlices, SloHistoryReader } from './SloHistoryReader';

const QUERY_PARAMETERS = ['environment', 'check'];

/**
 * `GET /v1/systems/:namespace/:name/slos`: a system's objectives and where
 * they stand. As every system route: the caller must be able to read the
 * System entity (else 404), and sees only the ServiceLevelObjective
 * entities the catalog lets it read.
 * @internal
 */
export function createSloRouter(options: {
  httpAuth: HttpAuthService;
  catalog: Pick<CatalogService, 'getEntityByRef' | 'getEntities'>;
  /** Which objectives count at all (their owner owns their system). */
  admission: Pick<ObjectiveAdmission, 'admitted'>;
  reader: Pick<SloHistoryReader, 'read'>;
  /** The burn-rate alert rules, to say which hold now; the workbook's by default. */
  rules?: readonly BurnRateAlertRule[];
  now?: () => number;
}): express.Router {
  const { httpAuth, catalog, admission, reader } = options;
  const rules = options.rules ?? DEFAULT_BURN_RATE_ALERT_RULES;
  const now = options.now ?? Date.now;
  const router = createTypedRouter();

  async function visibleSystem(
    systemRef: string,
    credentials: BackstageCredentials,
  ) {
    const entity = await catalog.getEntityByRef(systemRef, { credentials });
    if (!entity || entity.kind.toLowerCase() !== 'system') {
      throw new NotFoundError(`No system ${systemRef}`);
    }
  }

  router.get('/v1/systems/:namespace/:name/slos', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const filter = parseObjectiveQuery(req.query as Record<string, unknown>);
    const systemRef = stringifyEntityRef({
      kind: 'system',
      namespace: req.params.namespace,
      name: req.params.name,
    }).toLowerCase();
    await visibleSystem(systemRef, credentials);
    const objectives = (
      await loadCatalogObjectives({
        catalog,
        credentials,
        admission,
        systemRef,
      })
    ).filter(
      ({ objective }) =>
        (!filter.environment || objective.environment === filter.environment) &&
        (!filter.checkRef || objective.checkRef === filter.checkRef),
    );
    const at = now();
    const items = [];
    for (const entry of objectives) {
      const slices = await readObjectiveSlices(reader, entry.objective, at);
      const status = computeSlo(entry.objective, slices, at);
      items.push(
        objectiveResponse(entry, status, {
          alerts: rules.filter(rule =>
            burnRateConditionHolds(rule, status.burnRates),
          ),
          burnDown: budgetBurnDown(
            entry.objective,
            slices,
            status.window,
            status.errorBudget.total,
          ),
        }),
      );
    }
    res.json({ items });
  });

  return router as unknown as express.Router;
}

/**
 * The filters of the objectives route.
 * @throws InputError naming each unknown or malformed parameter
 * @internal
 */
export function parseObjectiveQuery(query: Record<string, unknown>): {
  environment?: string;
  checkRef?: string;
} {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (!QUERY_PARAMETERS.includes(key)) {
      problems.push(
        `${key}: unknown parameter (known: ${QUERY_PARAMETERS.join(', ')})`,
      );
    } else if (typeof value !== 'string' || value === '') {
      problems.push(`${key}: give it once, as text`);
    }
  }
  let checkRef: string | undefined;
  if (typeof query.check === 'string' && query.check !== '') {
    checkRef = canonicalEntityRef(query.check, { defaultKind: 'healthcheck' });
    if (!checkRef) {
      problems.push(
        `check: ${JSON.stringify(
          query.check,
        )} is not an entity ref, such as healthcheck:default/payments-http`,
      );
    }
  }
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return {
    ...(typeof query.environment === 'string'
      ? { environment: canonicalEnvironmentName(query.environment) }
      : {}),
    ...(checkRef ? { checkRef } : {}),
  };
}

function objectiveResponse(
  entry: CatalogObjective,
  status: SloStatus,
  extra: { alerts: BurnRateAlertRule[]; burnDown: BurnDownPoint[] },
) {
  const { objective } = entry;
  return {
    ref: entry.ref,
    title: entry.title,
    systemRef: objective.systemRef,
    environment: objective.environment,
    ...(objective.checkRef ? { checkRef: objective.checkRef } : {}),
    indicator: objective.indicator,
    window: objective.window,
    budgetingMethod: objective.budgetingMethod,
    target: objective.target,
    status: {
      from: new Date(status.window.from).toISOString(),
      to: new Date(status.window.to).toISOString(),
      unit: status.unit,
      good: status.good,
      bad: status.bad,
      attainment: status.attainment ?? null,
      errorBudget: {
        ...status.errorBudget,
        remainingRatio: status.errorBudget.remainingRatio ?? null,
      },
      burnRates: {
        '5m': status.burnRates['5m'] ?? null,
        '30m': status.burnRates['30m'] ?? null,
        '1h': status.burnRates['1h'] ?? null,
        '6h': status.burnRates['6h'] ?? null,
        '3d': status.burnRates['3d'] ?? null,
      },
      alerts: extra.alerts.map(rule => ({
        severity: rule.severity,
        burnRate: rule.burnRate,
        longWindow: rule.longWindow,
        shortWindow: rule.shortWindow,
      })),
      burnDown: extra.burnDown.map(point => ({
        at: new Date(point.at).toISOString(),
        remainingRatio: point.remainingRatio,
      })),
    },
  };
}
