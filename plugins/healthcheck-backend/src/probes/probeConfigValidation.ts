import Ajv, { type ValidateFunction } from 'ajv';
import type { ProbeType } from '@vigil/plugin-healthcheck-node';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Why a check's type-specific fields do not fit its probe type's
 * `configSchema`, one readable line per problem; empty when they fit or the
 * type has no schema. Schemas are compiled once each.
 *
 * @public
 */
export function validateProbeConfig(
  probeType: Pick<ProbeType<unknown>, 'type' | 'configSchema'>,
  config: unknown,
): string[] {
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
    const where = error.instancePath
      ? error.instancePath.slice(1).replace(/\//g, '.')
      : probeType.type;
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string })
        .additionalProperty;
      return `${where}: unknown field '${extra}'`;
    }
    if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] })
        .allowedValues;
      return `${where}: must be one of ${allowed.join(', ')}`;
    }
    return `${where}: ${error.message}`;
  });
}
