import { hash } from 'node:crypto';
import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';
import type { JsonObject, JsonValue } from '@backstage/types';
import {
  applyEnvironmentOverride,
  canonicalComponentRefs,
  canonicalEnvironmentName,
  compileTargetTemplate,
  encodeSliceId,
  environmentNameProblem,
  isHeartbeatSpec,
} from '@vigil/plugin-healthcheck-common';
import type { CatalogOwnershipRule } from '@vigil/plugin-healthcheck-node';
import { heartbeatTargetOf } from './heartbeatTargets';
import type { DerivationMemo, PairDerivation } from './derivationMemo';
import type { DesiredSlice, DesiredSliceSet } from '../model';
import type {
  CompiledTargetTemplate,
  ConditionSpec,
  HealthCheckSpec,
  HealthCheckThresholds,
  TargetTemplateOptions,
} from '@vigil/plugin-healthcheck-common';

/**
 * Where a check is defined: a HealthCheck entity, or a row the API wrote.
 * @internal
 */
export type CheckSource =
  | { kind: 'gitops'; entityRef: string; location?: string }
  | { kind: 'api' };

/**
 * A check as the reconciler reads it: validated, its durations parsed.
 * @internal
 */
export interface ReconcilableCheck {
  /** The check's id: the entity ref of a HealthCheck entity, the row id of an API check. */
  id: string;
  source: CheckSource;
  /** `false` takes the check out without pausing it (default `true`). */
  enabled?: boolean;
  spec: HealthCheckSpec;
  intervalMs: number;
  timeoutMs: number;
  /** The canonical ref of its `spec.owner`, for a HealthCheck entity that names one. */
  owner?: string;
  /**
   * What its slices are derived from, when known (a HealthCheck entity's
   * etag, an API check's stored spec): equal versions derive equal slices,
   * so a {@link DerivationMemo} may give the last ones back.
   */
  version?: string;
}

/**
 * A system as slices need it.
 * @internal
 */
export interface SystemEnvironments {
  /** The system's entity ref. */
  ref: string;
  /** Its `metadata.name`, for `{{ system.name }}`. */
  name: string;
  /** Its effective environments (see `resolveEnvironments`). */
  environments: readonly string[];
  /** The canonical ref of its `spec.owner`, when it names one. */
  owner?: string;
}

/**
 * Which systems a HealthCheck entity may monitor
 * (`healthcheck.checks.fromCatalog`): `owner`, only those its owner owns;
 * `any`, every system it names. Checks made through the API are judged by
 * permissions instead. The one rule every kind follows
 * (`CatalogOwnershipRule`).
 * @internal
 */
export type ChecksFromCatalog = CatalogOwnershipRule;

/**
 * How targets are rendered, from `healthcheck.targets`.
 * @internal
 */
export type TargetSettings = Pick<
  TargetTemplateOptions,
  'allowPlaceholderHosts'
>;

/**
 * The slices that should exist. A slice (check, system, environment) exists
 * iff the check is enabled and not paused, the system is among the check's
 * `systems`, and the environment is one of the system's effective
 * environments and passes the check's `environments` filter (compared
 * without regard to case). Slices of paused checks come back in `paused`.
 *
 * System refs are matched and written in canonical form (lower case, kind
 * and namespace filled in: a GitOps check's own namespace, else `default`);
 * a ref listed twice yields its slices once. Each slice carries the check's
 * `components` in the same canonical form. Pass only one system in
 * `systems` for the slices of that system alone.
 *
 * Each target is rendered by `compileTargetTemplate` for the check's probe
 * type: a slice whose target cannot be rendered safely, or whose
 * environment is no environment name (`resolveEnvironments` keeps those
 * out; checked again here), is not derived but comes back in `refused`
 * with the reason. A refusal never stops the other slices.
 * @internal
 */
export function desiredSlices(options: {
  checks: readonly ReconcilableCheck[];
  systems: readonly SystemEnvironments[];
  targets?: TargetSettings;
  /** Default `any`; see {@link ChecksFromCatalog}. */
  checksFromCatalog?: ChecksFromCatalog;
  /**
   * Judges each slice as rendered; a slice with problems is refused with
   * them. Everything passes without it.
   */
  validateSlice?: SliceValidator;
  /**
   * Gives back what a check of the same version derived on a system of the
   * same name, owner and environments in an earlier pass. Begun and ended
   * by the caller, who owns it with these settings and validator.
   */
  memo?: DerivationMemo;
}): DesiredSliceSet {
  const systemByRef = new Map<string, KnownSystem>();
  for (const system of options.systems) {
    const ref = system.ref.toLowerCase();
    if (!systemByRef.has(ref)) {
      const environments = [
        ...new Set(system.environments.map(canonicalEnvironmentName)),
      ];
      const invalid = new Map<string, string>();
      for (const environment of environments) {
        const problem = environmentNameProblem(environment);
        if (problem) {
          invalid.set(environment, problem);
        }
      }
      systemByRef.set(ref, {
        name: system.name,
        environments,
        invalid,
        owner: system.owner,
        // The invalid ones follow from the environments.
        key: [ref, system.name, system.owner ?? '', ...environments].join('\n'),
      });
    }
  }
  const result: DesiredSliceSet = {
    slices: [],
    paused: [],
    unresolvedSystems: [],
    refused: [],
  };
  // Checks tend to share a handful of target templates; split each once.
  const templates = new Map<string, CompiledTargetTemplate>();
  const compile = (probeType: string, template: string) => {
    const key = `${probeType}\n${template}`;
    let compiled = templates.get(key);
    if (!compiled) {
      compiled = compileTargetTemplate(template, {
        probeType,
        allowPlaceholderHosts: options.targets?.allowPlaceholderHosts,
      });
      templates.set(key, compiled);
    }
    return compiled;
  };
  const checksFromCatalog = options.checksFromCatalog ?? 'any';
  const context: DerivationContext = {
    systemByRef,
    compile,
    checksFromCatalog,
    validateSlice: options.validateSlice,
    memo: options.memo,
  };
  for (const check of options.checks) {
    if (check.enabled !== false) {
      addSlicesOfCheck(check, context, result);
    }
  }
  return result;
}

/**
 * Judges a slice as rendered; empty when it may run.
 * @internal
 */
export type SliceValidator = (
  slice: DesiredSlice,
) => Array<{ path: string; reason: string }>;

/**
 * Why a check may not monitor a system under the rule, or `undefined` when
 * it may: a HealthCheck entity whose owner does not own the system, under
 * `owner`. Anyone can write a catalog file that names any system; without
 * this, one team could attach a failing check to another team's system and
 * page it.
 * @internal
 */
export function catalogAssignmentProblem(
  check: Pick<ReconcilableCheck, 'source' | 'owner'>,
  system: { ref: string; owner?: string },
  rule: ChecksFromCatalog,
): string | undefined {
  if (rule === 'any' || check.source.kind !== 'gitops') {
    return undefined;
  }
  if (check.owner !== undefined && check.owner === system.owner) {
    return undefined;
  }
  return `${check.source.entityRef} is ${
    check.owner ? `owned by ${check.owner}` : 'owned by no one'
  } and ${system.ref} by ${
    system.owner ?? 'no one'
  }; a HealthCheck entity monitors only systems its owner owns (healthcheck.checks.fromCatalog: owner). Give the check spec.owner ${
    system.owner ?? '(the system has no owner to give)'
  }, or let the system's owner declare it`;
}

interface KnownSystem {
  name: string;
  owner?: string;
  /** Everything of the system a slice depends on, for the memo. */
  key: string;
  /** Canonical, without duplicates. */
  environments: string[];
  /** Those that are no environment name, with why. */
  invalid: ReadonlyMap<string, string>;
}

type Compile = (probeType: string, template: string) => CompiledTargetTemplate;

interface DerivationContext {
  systemByRef: ReadonlyMap<string, KnownSystem>;
  compile: Compile;
  checksFromCatalog: ChecksFromCatalog;
  validateSlice?: SliceValidator;
  memo?: DerivationMemo;
}

/** What a check derives on one system, before it is known which. */
interface CheckParts {
  shared: ReturnType<typeof sharedParts>;
  filter?: ReadonlySet<string>;
  targets: { components?: string[] };
}

function addSlicesOfCheck(
  check: ReconcilableCheck,
  context: DerivationContext,
  result: DesiredSliceSet,
) {
  const { spec } = check;
  const { systemByRef, memo } = context;
  const defaultNamespace =
    check.source.kind === 'gitops'
      ? parseEntityRef(check.source.entityRef).namespace
      : 'default';
  const seen = new Set<string>();
  // Worked out at the first system that is not in the memo.
  let parts: CheckParts | undefined;
  const partsOfCheck = (): CheckParts => {
    if (!parts) {
      const components = canonicalComponentRefs(
        spec.components,
        defaultNamespace,
      );
      parts = {
        shared: sharedParts(spec, context.compile),
        filter: spec.environments
          ? new Set(spec.environments.map(canonicalEnvironmentName))
          : undefined,
        targets: components.length > 0 ? { components } : {},
      };
    }
    return parts;
  };

  for (const written of spec.systems) {
    let systemRef: string;
    try {
      systemRef = stringifyEntityRef(
        parseEntityRef(written, { defaultKind: 'system', defaultNamespace }),
      );
    } catch (error) {
      result.unresolvedSystems.push({
        checkId: check.id,
        systemRef: written,
        reason: (error as Error).message,
      });
      continue;
    }
    if (seen.has(systemRef)) {
      continue;
    }
    seen.add(systemRef);
    const system = systemByRef.get(systemRef);
    if (!system) {
      result.unresolvedSystems.push({
        checkId: check.id,
        systemRef,
        reason: 'no such system in the catalog',
      });
      continue;
    }
    const derive = () =>
      derivePair(check, systemRef, system, partsOfCheck(), context);
    const derivation = memo
      ? memo.pair(check.id, check.version, system.key, derive)
      : derive();
    appendAll(result.slices, derivation.slices);
    appendAll(result.paused, derivation.paused);
    appendAll(result.refused, derivation.refused);
  }
}

/** The slices, paused slices and refusals of one check on one system. */
function derivePair(
  check: ReconcilableCheck,
  systemRef: string,
  system: KnownSystem,
  { shared, filter, targets }: CheckParts,
  context: DerivationContext,
): PairDerivation {
  const { spec } = check;
  const result: PairDerivation = { slices: [], paused: [], refused: [] };
  const unassignable = catalogAssignmentProblem(
    check,
    { ref: systemRef, owner: system.owner },
    context.checksFromCatalog,
  );
  for (const environment of system.environments) {
    if (filter && !filter.has(environment)) {
      continue;
    }
    const checkId = check.id;
    const id = encodeSliceId({ checkId, systemRef, environment });
    const invalid = unassignable ?? system.invalid.get(environment);
    if (invalid) {
      result.refused.push({
        id,
        checkId,
        systemRef,
        environment,
        reason: invalid,
      });
      continue;
    }
    if (spec.paused) {
      result.paused.push({ id, checkId, systemRef, environment, ...targets });
      continue;
    }
    const part = shared.of(environment);
    // A heartbeat slice probes nothing: its tick reads its pings by its id.
    const rendered = shared.heartbeat
      ? { ok: true as const, target: heartbeatTargetOf(id) }
      : part.template.render({
          systemName: system.name,
          environmentName: environment,
        });
    if (!rendered.ok) {
      result.refused.push({
        id,
        checkId,
        systemRef,
        environment,
        reason: rendered.reason,
      });
      continue;
    }
    result.slices.push(
      sliceOf(
        check,
        part,
        { id, systemRef, environment },
        targets,
        rendered.target,
      ),
    );
  }
  if (context.validateSlice) {
    const valid: DesiredSlice[] = [];
    for (const slice of result.slices) {
      const problems = context.validateSlice(slice);
      if (problems.length === 0) {
        valid.push(slice);
      } else {
        result.refused.push({
          id: slice.id,
          checkId: slice.checkId,
          systemRef: slice.systemRef,
          environment: slice.environment,
          reason: problems.map(p => `${p.path}: ${p.reason}`).join('; '),
        });
      }
    }
    result.slices = valid;
  }
  return result;
}

function sliceOf(
  check: ReconcilableCheck,
  part: EnvironmentPart & {
    conditions: ConditionSpec[];
    thresholds: HealthCheckThresholds;
  },
  key: { id: string; systemRef: string; environment: string },
  targets: { components?: string[] },
  target: string,
): DesiredSlice {
  return {
    ...key,
    checkId: check.id,
    intervalMs: check.intervalMs,
    timeoutMs: check.timeoutMs,
    type: check.spec.type,
    target,
    config: part.config,
    conditions: part.conditions,
    thresholds: part.thresholds,
    configHash: hash('sha256', `${part.canonical}\n${target}`, 'hex'),
    ...targets,
  };
}

/** Appends one by one: spread into push(), 120,000 items overflow the stack. */
function appendAll<T>(target: T[], items: readonly T[]) {
  for (const item of items) {
    target.push(item);
  }
}

interface EnvironmentPart {
  /** The target (after the override), to render for each system. */
  template: CompiledTargetTemplate;
  config: JsonObject;
  /** Canonical JSON of the type, config, conditions and thresholds. */
  canonical: string;
}

/**
 * What a check contributes to each of its slices apart from the rendered
 * target: the same on every system, so computed once per environment, and
 * the canonical JSON of the parts no override touches once per check.
 */
function sharedParts(spec: HealthCheckSpec, compile: Compile) {
  const conditions = spec.conditions ?? [];
  const thresholds = spec.thresholds ?? {};
  const byEnvironment = new Map<string, EnvironmentPart>();
  let fixed: string | undefined;
  let baseConfig: string | undefined;
  const heartbeat = isHeartbeatSpec(spec);
  return {
    heartbeat,
    of(environment: string) {
      let part = byEnvironment.get(environment);
      if (!part) {
        // A heartbeat check's timing is its slices' config: what their
        // ticks judge the pings by.
        const { target, config } = heartbeat
          ? { target: '', config: heartbeatConfigOf(spec) }
          : applyEnvironmentOverride(spec, environment);
        fixed ??= canonicalJson({
          type: spec.type,
          conditions,
          thresholds,
        } as unknown as JsonValue);
        // Without an override it hands back the check's own config object.
        const overridden = config !== (spec.config ?? config);
        let configJson: string;
        if (overridden) {
          configJson = canonicalJson(config);
        } else {
          baseConfig ??= canonicalJson(config);
          configJson = baseConfig;
        }
        part = {
          template: compile(spec.type, target),
          config,
          canonical: `${fixed}\n${configJson}`,
        };
        byEnvironment.set(environment, part);
      }
      return { ...part, conditions, thresholds };
    },
  };
}

/** The timing fields of a heartbeat check, as its slices' config. */
function heartbeatConfigOf(spec: HealthCheckSpec): JsonObject {
  const config: JsonObject = {};
  for (const field of ['period', 'schedule', 'timezone', 'grace'] as const) {
    if (spec[field] !== undefined) {
      config[field] = spec[field]!;
    }
  }
  return config;
}

/**
 * JSON with object keys sorted at every level, so equal values always give
 * equal text (and hash), whatever order their keys were written in.
 * @internal
 */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    return `[${value.map(item => canonicalJson(item)).join(',')}]`;
  }
  return `{${Object.keys(value)
    .filter(key => value[key] !== undefined)
    .sort()
    .map(key => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
    .join(',')}}`;
}
