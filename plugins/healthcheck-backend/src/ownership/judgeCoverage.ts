import {
  CatalogOwnershipRule,
  CoveredTarget,
  CoveringEntity,
  coverageOwnershipProblems,
  TargetOwners,
} from '@vigil/plugin-healthcheck-node';
import { formatProblemPath } from '@vigil/plugin-healthcheck-common';

/**
 * How many entities of one kind may reach one target, and the setting
 * that says so (for the message).
 * @internal
 */
export interface CoverageCap {
  /** At most this many entities per target; those beyond are refused for it. */
  perTarget: number;
  /** The setting, such as `healthcheck.maintenance.maxWindowsPerSystem`. */
  key: string;
  /** Which targets the cap counts (a system, not the check of an objective); all without it. */
  counts?: (target: CoveredTarget) => boolean;
}

/**
 * What a MaintenanceWindow or ServiceLevelObjective entity may reach.
 * @internal
 */
export interface CoverageVerdict {
  /** The canonical refs of the targets it may reach. */
  admitted: ReadonlySet<string>;
  /** Each target refused, as `path: reason`, in the order it names them. */
  refused: string[];
}

/**
 * Judges what each entity may reach. First the ownership rule: under
 * `owner`, a target another team owns, or the catalog does not hold, is
 * refused at its field (see `coverageOwnershipProblems`). Then the cap:
 * of the entities that reach a target, the first `perTarget` keep it and
 * the rest are refused for it alone, their other targets untouched. First
 * means the entities the target's own owner declared, then the others
 * (only where the rule is `any`), each in entity ref order: the same
 * entities win on every read, and no other team's can push the owner's
 * out.
 * @internal
 */
export function judgeCoverage(
  entities: readonly CoveringEntity[],
  owners: TargetOwners,
  options: { rule: CatalogOwnershipRule; cap: CoverageCap },
): Map<string, CoverageVerdict> {
  const { rule, cap } = options;
  const verdicts = new Map<
    string,
    { admitted: Set<string>; refused: Map<CoveredTarget, string> }
  >();
  // Per capped target, who reaches it, to be ranked.
  const contenders = new Map<
    string,
    Array<{ entity: CoveringEntity; target: CoveredTarget; own: boolean }>
  >();
  for (const entity of entities) {
    const refused = new Map<CoveredTarget, string>();
    const verdict = { admitted: new Set<string>(), refused };
    verdicts.set(entity.ref, verdict);
    const problems = coverageOwnershipProblems(entity, owners, rule);
    const seen = new Set<string>();
    for (const target of entity.targets) {
      const at = formatProblemPath(target.path);
      const problem = problems.find(p => formatProblemPath(p.path) === at);
      if (problem) {
        refused.set(target, problem.reason);
      } else if (!seen.has(target.ref)) {
        seen.add(target.ref);
        if (cap.counts && !cap.counts(target)) {
          verdict.admitted.add(target.ref);
          continue;
        }
        const list = contenders.get(target.ref) ?? [];
        list.push({
          entity,
          target,
          own:
            entity.owner !== undefined &&
            entity.owner === owners.get(target.ref)?.owner,
        });
        contenders.set(target.ref, list);
      }
    }
  }
  for (const [targetRef, list] of contenders) {
    list.sort(
      (a, b) =>
        Number(b.own) - Number(a.own) ||
        compareRefs(a.entity.ref, b.entity.ref),
    );
    list.forEach(({ entity, target }, rank) => {
      const verdict = verdicts.get(entity.ref)!;
      if (rank < cap.perTarget) {
        verdict.admitted.add(targetRef);
      } else {
        verdict.refused.set(
          target,
          `${targetRef} is already reached by ${cap.perTarget} ${entity.kind} entities, the most one may be (${cap.key}); its owner's own come first, then entity ref order, and this one is left out for it`,
        );
      }
    });
  }
  const result = new Map<string, CoverageVerdict>();
  for (const entity of entities) {
    const { admitted, refused } = verdicts.get(entity.ref)!;
    // Refusals in the order the entity names its targets.
    const lines = entity.targets
      .filter(target => refused.has(target))
      .map(
        target => `${formatProblemPath(target.path)}: ${refused.get(target)}`,
      );
    result.set(entity.ref, { admitted, refused: lines });
  }
  return result;
}

/** Entity ref order: code unit by code unit, whatever the locale. */
function compareRefs(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}
