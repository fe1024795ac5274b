import { JsonObject, JsonValue } from '@backstage/types';
import {
  HealthCheckEnvironmentOverride,
  HealthCheckSpec,
} from './healthCheckSpec';

/**
 * The environment name as slices, filters and overrides compare it: lower
 * case, so `Production` and `production` are one environment (the same
 * lower-casing as `stringifyEntityRef`, independent of the process locale).
 * Canonical is not valid: `environmentNameProblem` says whether it is a name.
 * @public
 */
export function canonicalEnvironmentName(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The override a check declares for an environment, its key compared
 * without regard to case; `undefined` when it declares none. Should two keys
 * differ only in case (validation refuses that), the first in sorted order
 * wins, so the answer never depends on key order.
 * @public
 */
export function findEnvironmentOverride(
  overrides: HealthCheckSpec['environmentOverrides'],
  environmentName: string,
): HealthCheckEnvironmentOverride | undefined {
  if (!overrides) {
    return undefined;
  }
  const wanted = canonicalEnvironmentName(environmentName);
  const exact = overrides[wanted];
  if (exact) {
    return exact;
  }
  const key = Object.keys(overrides)
    .sort()
    .find(k => canonicalEnvironmentName(k) === wanted);
  return key === undefined ? undefined : overrides[key];
}

/**
 * The target (not yet rendered) and probe config a check uses in one
 * environment: the override's target if it has one, and its config merged
 * over the check's as a JSON merge patch (RFC 7386).
 * @public
 */
export function applyEnvironmentOverride(
  spec: Pick<HealthCheckSpec, 'target' | 'config' | 'environmentOverrides'>,
  environmentName: string,
): { target: string; config: JsonObject } {
  const override = findEnvironmentOverride(
    spec.environmentOverrides,
    environmentName,
  );
  const config = spec.config ?? {};
  return {
    target: override?.target ?? spec.target ?? '',
    config: override?.config
      ? (mergePatch(config, override.config) as JsonObject)
      : config,
  };
}

/**
 * RFC 7386: objects merge key by key, `null` removes a key, anything else
 * (arrays included) replaces. Neither input is modified.
 * @public
 */
export function mergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) {
    return patch;
  }
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (value !== undefined) {
      // Defined rather than assigned, so a key named __proto__ stays data.
      Object.defineProperty(result, key, {
        value: mergePatch(
          Object.prototype.hasOwnProperty.call(result, key)
            ? result[key] ?? null
            : null,
          value,
        ),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
