/**
 * Where a problem is in a document: its keys and list indexes from the
 * root, `['spec', 'conditions', 2]`; empty for the document as a whole.
 * @public
 */
export type ProblemPath = Array<string | number>;

/**
 * A path as people read it, as the catalog's and the API's messages write
 * it: `spec.conditions[2]`, `spec.environmentOverrides["eu west"].target`.
 * @public
 */
export function formatProblemPath(path: ProblemPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      text += `[${segment}]`;
    } else if (!/^[A-Za-z_$][\w$-]*$/.test(segment)) {
      text += `[${JSON.stringify(segment)}]`;
    } else {
      text += text ? `.${segment}` : segment;
    }
  }
  return text;
}

/**
 * One thing wrong with a check spec: where (`['spec', 'interval']`,
 * `['spec', 'conditions', 2]`) and why.
 * @public
 */
export interface HealthCheckSpecProblem {
  path: ProblemPath;
  reason: string;
}
