import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { SystemSloSummary } from '@vigil/plugin-healthcheck-common';
import { CatalogObjective, loadCatalogObjectives } from './catalogObjectives';
import type { ObjectiveAdmission } from './ObjectiveAdmission';
import { computeSlo } from './computeSlo';
import { readObjectiveSlices, SloHistoryReader } from './SloHistoryReader';

/**
 * One objective in a line: what badges and the overview show of it.
 *
 * @internal
 */
export type ObjectiveSummary = SystemSloSummary['worst'];

/**
 * The objective with the least error budget left, as a share of its
 * budget; one with nothing counted yet (no share) only when no other has
 * one. Ties go to the first. `undefined` for none.
 *
 * @internal
 */
export function worstObjective<
  T extends Pick<ObjectiveSummary, 'remainingRatio'>,
>(summaries: readonly T[]): T | undefined {
  let worst: T | undefined;
  for (const summary of summaries) {
    if (
      !worst ||
      (summary.remainingRatio !== null &&
        (worst.remainingRatio === null ||
          summary.remainingRatio < worst.remainingRatio))
    ) {
      worst = summary;
    }
  }
  return worst;
}

/**
 * Where each of a system's objectives stands now, in a line each: the same
 * math as the objectives route, without burn rates and burn-down.
 *
 * @internal
 */
export async function summarizeObjectives(options: {
  objectives: readonly CatalogObjective[];
  reader: Pick<SloHistoryReader, 'read'>;
  now: number;
}): Promise<ObjectiveSummary[]> {
  const { reader, now } = options;
  const summaries: ObjectiveSummary[] = [];
  for (const { ref, title, objective } of options.objectives) {
    const status = computeSlo(
      objective,
      await readObjectiveSlices(reader, objective, now),
      now,
    );
    summaries.push({
      ref,
      title,
      environment: objective.environment,
      target: objective.target,
      attainment: status.attainment ?? null,
      remainingRatio: status.errorBudget.remainingRatio ?? null,
    });
  }
  return summaries;
}

/**
 * The SLO line of each of `systemRefs` that has objectives the credentials
 * may read: how many, and the worst (see {@link worstObjective}). One
 * catalog request for all the systems; systems without objectives are
 * absent from the answer.
 *
 * @internal
 */
export async function systemSloSummaries(options: {
  catalog: Pick<CatalogService, 'getEntities'>;
  admission: Pick<ObjectiveAdmission, 'admitted'>;
  reader: Pick<SloHistoryReader, 'read'>;
  credentials: BackstageCredentials;
  systemRefs: readonly string[];
  now: number;
}): Promise<Map<string, SystemSloSummary>> {
  const bySystem = new Map<string, CatalogObjective[]>();
  if (options.systemRefs.length === 0) {
    return new Map();
  }
  const declared = await loadCatalogObjectives({
    catalog: options.catalog,
    credentials: options.credentials,
    admission: options.admission,
    systemRefs: options.systemRefs,
  });
  for (const entry of declared) {
    const systemRef = entry.objective.systemRef;
    bySystem.set(systemRef, [...(bySystem.get(systemRef) ?? []), entry]);
  }
  const answers = new Map<string, SystemSloSummary>();
  for (const [systemRef, objectives] of bySystem) {
    const summaries = await summarizeObjectives({
      objectives,
      reader: options.reader,
      now: options.now,
    });
    const worst = worstObjective(summaries);
    if (worst) {
      answers.set(systemRef, { objectives: summaries.length, worst });
    }
  }
  return answers;
}
