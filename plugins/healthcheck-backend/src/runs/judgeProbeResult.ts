import { ProbeResult } from '@vigil/plugin-healthcheck-node';
import {
  CompiledCondition,
  ConditionSpec,
  JudgedCondition,
  compileConditions,
  judgeCompiledConditions,
} from '@vigil/plugin-healthcheck-common';
import { RunOutcome } from '../judge';

/** What one probe run means once its conditions are applied. */
export interface ProbeVerdict {
  outcome: RunOutcome;
  conditions: JudgedCondition[];
}

/**
 * Turns what a probe observed into a run outcome. A probe that could not do
 * its job (refused, timed out, refused by the guard) fails the run whatever
 * the conditions say; otherwise the conditions decide, and a check without
 * conditions passes when the probe did.
 */
export function judgeProbeResult(
  result: ProbeResult,
  conditions: readonly CompiledCondition[],
): ProbeVerdict {
  const judged = judgeCompiledConditions(conditions, {
    status: result.status,
    body: result.body,
    responseTimeMs: result.durationMs,
    ip: result.ip,
    connected: result.connected,
    certificateExpirationMs: result.certificateExpirationMs,
    dnsRcode: result.dnsRcode,
    dnsAnswers: result.dnsAnswers,
  });
  if (!result.ok || result.error) {
    return { outcome: 'fail', conditions: judged.results };
  }
  return { outcome: judged.outcome, conditions: judged.results };
}

const compiledBySpecs = new WeakMap<
  readonly ConditionSpec[],
  readonly CompiledCondition[]
>();

/**
 * A slice's conditions, parsed at its first run and then kept while the slice
 * is loaded: a reloaded slice brings a new list and is compiled once more, and
 * the compiled form of a list no slice holds any more is collected with it.
 */
export function compiledConditionsOf(slice: {
  readonly conditions: readonly ConditionSpec[];
}): readonly CompiledCondition[] {
  let compiled = compiledBySpecs.get(slice.conditions);
  if (!compiled) {
    compiled = compileConditions(slice.conditions);
    compiledBySpecs.set(slice.conditions, compiled);
  }
  return compiled;
}
