import type { LoadedDesiredSlices } from './loadDesiredSlices';

/**
 * The subject of problems that concern no one system: the catalog's
 * Environment entities. Not an entity ref, so it cannot collide with one.
 * @internal
 */
export const CATALOG_SUBJECT = '*catalog';

/**
 * The subject of the problems of one check that fails validation: not an
 * entity ref, so it cannot collide with a system's.
 * @internal
 */
export function checkSubject(checkId: string): string {
  return `*check ${checkId}`;
}

/**
 * How a subject reads in a log line.
 * @internal
 */
export function describeSubject(subject: string): string {
  if (subject === CATALOG_SUBJECT) {
    return "the catalog's Environment entities";
  }
  return subject.startsWith('*check ') ? subject.slice(1) : subject;
}

/**
 * What a pass found wrong, one sentence each, under the canonical ref of
 * the system concerned, {@link checkSubject} for a check that fails
 * validation, or {@link CATALOG_SUBJECT}: environments left out or warned
 * about, systems a check names that the catalog lacks, slices refused with
 * their check, system, environment and reason, and invalid checks.
 * @internal
 */
export function problemsBySubject(
  loaded: Pick<
    LoadedDesiredSlices,
    'environmentProblems' | 'unresolvedSystems' | 'refused' | 'invalidChecks'
  >,
): Map<string, string[]> {
  const bySubject = new Map<string, string[]>();
  const add = (subject: string, message: string) => {
    const messages = bySubject.get(subject);
    if (messages) {
      messages.push(message);
    } else {
      bySubject.set(subject, [message]);
    }
  };
  for (const invalid of loaded.invalidChecks) {
    add(
      checkSubject(invalid.checkId),
      `check ${
        invalid.checkId
      } runs nowhere until it is fixed: ${invalid.problems.join('; ')}`,
    );
  }
  for (const problem of loaded.environmentProblems) {
    add(problem.systemRef ?? CATALOG_SUBJECT, problem.message);
  }
  for (const u of loaded.unresolvedSystems) {
    add(
      u.systemRef.toLowerCase(),
      `check ${u.checkId} names ${u.systemRef}, which is not in the catalog`,
    );
  }
  for (const r of loaded.refused) {
    add(
      r.systemRef,
      `check ${r.checkId} does not run for ${r.systemRef} in environment "${r.environment}": ${r.reason}`,
    );
  }
  return bySubject;
}

/**
 * The problems last reported per subject, so that each is logged once per
 * change rather than on every pass.
 * @internal
 */
export class ReportedProblems {
  readonly #reported = new Map<string, string>();

  /**
   * Records what a pass over `scope` found and returns each subject whose
   * problems changed since they were last reported, with its problems now:
   * empty when they are gone. A full pass speaks for every subject; a
   * scoped pass for its systems (canonical refs), whose problems it may
   * clear, and for whatever else it found (a check it read), which only a
   * full pass clears.
   */
  update(
    scope: 'full' | readonly string[],
    problems: ReadonlyMap<string, string[]>,
  ): Array<{ subject: string; problems: string[] }> {
    const subjects =
      scope === 'full'
        ? new Set([...this.#reported.keys(), ...problems.keys()])
        : new Set([...scope, ...problems.keys()]);
    const changed: Array<{ subject: string; problems: string[] }> = [];
    for (const subject of [...subjects].sort()) {
      const now = problems.get(subject) ?? [];
      const text = now.join('\n');
      if (text === (this.#reported.get(subject) ?? '')) {
        continue;
      }
      if (text === '') {
        this.#reported.delete(subject);
      } else {
        this.#reported.set(subject, text);
      }
      changed.push({ subject, problems: now });
    }
    return changed;
  }
}
