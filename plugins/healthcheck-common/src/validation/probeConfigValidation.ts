import Ajv, { type ValidateFunction } from 'ajv';

/**
 * One thing wrong with a probe type's config: where, as a path into it
 * (`expect`, `headers.Authorization`), and why.
 * @public
 */
export interface ProbeConfigProblem {
  path: string;
  reason: string;
}

/**
 * What a probe type says of its config: its JSON schema and what the schema
 * cannot say (a probe type of `@vigil/plugin-healthcheck-node` is one).
 * @public
 */
export interface ProbeConfigRules {
  type: string;
  /** JSON schema of the type's own fields. */
  configSchema?: object;
  /** Problems the schema cannot find, for a config that meets it. */
  validateConfig?(config: any): ProbeConfigProblem[];
}

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Why a check's type-specific fields do not fit its probe type's
 * `configSchema`, each at its path in the config (`''` for the config
 * itself); empty when they fit or the type has no schema. Schemas are
 * compiled once each.
 *
 * @public
 */
export function validateProbeConfig(
  probeType: Pick<ProbeConfigRules, 'type' | 'configSchema'>,
  config: unknown,
): ProbeConfigProblem[] {
  const schema = probeType.configSchema;
  if (!schema) {
    return [];
  }
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(config)) {
    return [];
  }
  return (validate.errors ?? []).map(error => {
    const path = error.instancePath.slice(1).replace(/\//g, '.');
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string })
        .additionalProperty;
      return { path, reason: `unknown field '${extra}'` };
    }
    if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] })
        .allowedValues;
      return { path, reason: `must be one of ${allowed.join(', ')}` };
    }
    return { path, reason: error.message ?? error.keyword };
  });
}
