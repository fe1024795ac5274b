import { ConditionParseError } from './ConditionParseError';
import { evaluateWithInputs } from './evaluateCondition';
import { parseCondition } from './parseCondition';
import { ConditionInputs } from './resolveOperand';
import {
  Condition,
  ConditionContext,
  ConditionJudgement,
  ConditionProblem,
  ConditionSeverity,
  ConditionSpec,
  JudgedCondition,
} from './types';

const SEVERITIES: readonly ConditionSeverity[] = ['unhealthy', 'degraded'];
const DEFAULT_SEVERITY: ConditionSeverity = 'unhealthy';

type ReadSpec =
  | { ok: true; condition: string; severity: ConditionSeverity }
  | { ok: false; condition: string; reason: string };

function readSpec(spec: unknown): ReadSpec {
  if (typeof spec === 'string') {
    return { ok: true, condition: spec, severity: DEFAULT_SEVERITY };
  }
  if (typeof spec === 'object' && spec !== null && !Array.isArray(spec)) {
    const { condition, severity } = spec as Record<string, unknown>;
    if (typeof condition !== 'string') {
      return {
        ok: false,
        condition: '',
        reason: 'an object condition needs a "condition" text',
      };
    }
    if (
      severity !== undefined &&
      !(SEVERITIES as readonly unknown[]).includes(severity)
    ) {
      return {
        ok: false,
        condition,
        reason: `severity is "unhealthy" or "degraded", not ${JSON.stringify(
          severity,
        )}`,
      };
    }
    return {
      ok: true,
      condition,
      severity: (severity as ConditionSeverity) ?? DEFAULT_SEVERITY,
    };
  }
  return {
    ok: false,
    condition: String(spec),
    reason: 'a condition is a text, or { condition, severity }',
  };
}

/**
 * One condition of a check, parsed once: what it says and how severe it is,
 * and either its parsed expression or why it cannot be used.
 * @public
 */
export type CompiledCondition =
  | {
      condition: string;
      severity: ConditionSeverity;
      expression: Condition;
    }
  | {
      condition: string;
      severity: ConditionSeverity;
      /** The display of a run judged by it: the text and why it is invalid. */
      invalid: string;
    };

/**
 * Parses a check's conditions once, for judging many runs
 * ({@link judgeCompiledConditions}): a slice compiles its conditions when it
 * first runs, not on every run.
 * @public
 */
export function compileConditions(
  specs: readonly ConditionSpec[],
): CompiledCondition[] {
  return specs.map((spec): CompiledCondition => {
    const read = readSpec(spec);
    if (!read.ok) {
      return {
        condition: read.condition,
        severity: DEFAULT_SEVERITY,
        invalid: `${read.condition} (invalid: ${read.reason})`,
      };
    }
    const { condition, severity } = read;
    try {
      return { condition, severity, expression: parseCondition(condition) };
    } catch (error) {
      if (!(error instanceof ConditionParseError)) {
        throw error;
      }
      return {
        condition,
        severity: DEFAULT_SEVERITY,
        invalid: `${condition} (invalid at position ${error.position}: ${error.reason})`,
      };
    }
  });
}

/**
 * Evaluates a check's conditions against one run's observations. The
 * outcome is `fail` when a condition of severity `unhealthy` (the default)
 * failed, `degraded` when only `degraded` ones did, `pass` otherwise.
 *
 * Conditions are validated when a check is loaded ({@link validateConditions});
 * one that still does not parse here fails, as `unhealthy`, with the reason
 * in its display, rather than throwing in the middle of a run.
 * @public
 */
export function judgeConditions(
  specs: readonly ConditionSpec[],
  context: ConditionContext,
): ConditionJudgement {
  return judgeCompiledConditions(compileConditions(specs), context);
}

/**
 * {@link judgeConditions} with conditions parsed before
 * ({@link compileConditions}).
 * @public
 */
export function judgeCompiledConditions(
  compiled: readonly CompiledCondition[],
  context: ConditionContext,
): ConditionJudgement {
  const inputs = new ConditionInputs(context);
  const results = compiled.map(
    (entry): JudgedCondition =>
      'invalid' in entry
        ? {
            condition: entry.condition,
            severity: entry.severity,
            success: false,
            display: entry.invalid,
          }
        : {
            condition: entry.condition,
            severity: entry.severity,
            ...evaluateWithInputs(entry.expression, inputs),
          },
  );
  const failed = results.filter(result => !result.success);
  let outcome: ConditionJudgement['outcome'] = 'pass';
  if (failed.some(result => result.severity === 'unhealthy')) {
    outcome = 'fail';
  } else if (failed.length > 0) {
    outcome = 'degraded';
  }
  return { outcome, results };
}

/**
 * Every reason a check's conditions cannot be used, each naming the
 * condition (index and text), the position in it and the reason; empty when
 * all are fine. For the catalog processor and the API, at load time.
 * @public
 */
export function validateConditions(
  specs: readonly unknown[],
): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  specs.forEach((spec, index) => {
    const read = readSpec(spec);
    let position = 0;
    let reason: string | undefined;
    if (!read.ok) {
      reason = read.reason;
    } else {
      try {
        parseCondition(read.condition);
      } catch (error) {
        if (!(error instanceof ConditionParseError)) {
          throw error;
        }
        position = error.position;
        reason = error.reason;
      }
    }
    if (reason !== undefined) {
      problems.push({
        index,
        condition: read.condition,
        position,
        reason,
        message: `conditions[${index}] ${JSON.stringify(
          read.condition,
        )}, at position ${position}: ${reason}`,
      });
    }
  });
  return problems;
}
