import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';

/**
 * The canonical ref of the System an agent names, as it may write it:
 * `payments`, `default/payments` or `system:default/payments`.
 * @throws InputError naming the field when it is not a System's ref
 * @internal
 */
export function systemRefOf(text: string, field = 'system'): string {
  let ref;
  try {
    ref = parseEntityRef(text.trim(), {
      defaultKind: 'system',
      defaultNamespace: 'default',
    });
  } catch (error) {
    throw new InputError(
      `${field}: '${text}' is not an entity ref (payments, default/payments or system:default/payments)`,
    );
  }
  if (ref.kind.toLowerCase() !== 'system') {
    throw new InputError(
      `${field}: '${text}' is a ${ref.kind}, not a System; give a System's name or ref`,
    );
  }
  return stringifyEntityRef(ref).toLowerCase();
}
