import { ProbeType } from '@vigil/plugin-healthcheck-node';

const PROBE_TYPE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * The probe types this backend knows, built-in and added by modules. Refuses
 * a second type of the same name, so two modules cannot silently shadow each
 * other.
 */
export class ProbeTypeRegistry {
  readonly #types = new Map<string, ProbeType<any>>();

  add(probeType: ProbeType<any>): void {
    if (!PROBE_TYPE_NAME.test(probeType.type)) {
      throw new TypeError(
        `Probe type name '${probeType.type}' is invalid: use lower case letters, digits and dashes, starting with a letter`,
      );
    }
    if (this.#types.has(probeType.type)) {
      throw new TypeError(
        `Probe type '${probeType.type}' is already registered; each type can be added once`,
      );
    }
    this.#types.set(probeType.type, probeType);
  }

  get(type: string): ProbeType<any> | undefined {
    return this.#types.get(type);
  }

  list(): string[] {
    return [...this.#types.keys()].sort();
  }
}
