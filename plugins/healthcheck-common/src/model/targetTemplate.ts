/**
 * What a target's placeholders are replaced with for one slice.
 * @public
 */
export interface TargetTemplateValues {
  /** The system entity's `metadata.name`. */
  systemName: string;
  /** The environment's canonical (lower-case) name. */
  environmentName: string;
}

/**
 * The placeholders a target may use, as written between `{{` and `}}`.
 * @public
 */
export const TARGET_TEMPLATE_VARIABLES: readonly string[] = [
  'system.name',
  'environment.name',
];

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/**
 * A target template split once into text and placeholders, for rendering
 * it for many slices.
 * @public
 */
export type CompiledTargetTemplate = (values: TargetTemplateValues) => string;

/**
 * Splits a target template once, so rendering it per slice is only joining
 * strings. Renders as {@link renderTargetTemplate} does.
 * @public
 */
export function compileTargetTemplate(
  template: string,
): CompiledTargetTemplate {
  if (!template.includes('{{')) {
    return () => template;
  }
  // Text at even indexes, a known variable at odd ones.
  const pieces: string[] = [];
  let rest = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match[1] === 'system.name' || match[1] === 'environment.name') {
      pieces.push(template.slice(rest, match.index), match[1]);
      rest = match.index! + match[0].length;
    }
  }
  pieces.push(template.slice(rest));
  return values => {
    let text = pieces[0];
    for (let i = 1; i < pieces.length; i += 2) {
      text +=
        (pieces[i] === 'system.name'
          ? values.systemName
          : values.environmentName) + pieces[i + 1];
    }
    return text;
  };
}

/**
 * The target of one slice: each `{{ system.name }}` and
 * `{{ environment.name }}` (spaces inside the braces optional) replaced by
 * its value, inserted as is. Anything else is left untouched; validation
 * ({@link findTargetTemplateProblems}) keeps it out of stored checks.
 * @public
 */
export function renderTargetTemplate(
  template: string,
  values: TargetTemplateValues,
): string {
  return compileTargetTemplate(template)(values);
}

/**
 * Why a target template cannot be rendered: placeholders other than
 * {@link TARGET_TEMPLATE_VARIABLES}, and `{{` without its `}}`, each with
 * its 0-based position. Empty when it is fine.
 * @public
 */
export function findTargetTemplateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!TARGET_TEMPLATE_VARIABLES.includes(match[1])) {
      problems.push(
        `unknown placeholder ${JSON.stringify(match[0])} at position ${
          match.index
        }; use ${TARGET_TEMPLATE_VARIABLES.map(v => `{{ ${v} }}`).join(
          ' or ',
        )}`,
      );
    }
  }
  const unclosed = template.replace(PLACEHOLDER, m => ' '.repeat(m.length));
  const open = unclosed.indexOf('{{');
  if (open !== -1) {
    problems.push(`"{{" at position ${open} is never closed with "}}"`);
  }
  return problems;
}
