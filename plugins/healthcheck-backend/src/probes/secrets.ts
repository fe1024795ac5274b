/**
 * `${secret:NAME}` references in check configuration, resolved from the
 * Backstage config key `healthcheck.secrets`. Checks are stored and returned
 * with the references, never the values; values exist only inside a running
 * probe, and every text a probe hands back goes through `redact`.
 */
import type { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { EchoRedactor, secretEchoForms } from './secretEchoes';

/** `${secret:NAME}`; the name part is checked separately for a clear error. */
const SECRET_REFERENCE = /\$\{secret:([^}]*)\}/g;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * What replaces a secret's value in logs, results and stored errors.
 * @public
 */
export const REDACTED = '***';

/**
 * A reference to a secret found in a check's configuration.
 * @public
 */
export interface SecretReference {
  name: string;
  /** Where it was found, as a path into the configuration: `headers.Authorization`. */
  path: string;
}

function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') {
    return `${path}[${key}]`;
  }
  return path ? `${path}.${key}` : key;
}

/**
 * Every `${secret:NAME}` in a JSON value, with the path to the string that
 * holds it. Throws {@link @backstage/errors#InputError} for a reference
 * whose name cannot be a secret name, such as `${secret:}`.
 * @public
 */
export function findSecretReferences(
  value: unknown,
  path = '',
): SecretReference[] {
  if (typeof value === 'string') {
    return [...value.matchAll(SECRET_REFERENCE)].map(match => {
      if (!SECRET_NAME.test(match[1])) {
        throw new InputError(
          `Malformed secret reference '${match[0]}' in ${
            path || 'the value'
          }: a secret name starts with a letter or '_' and holds letters, digits, '_', '.' and '-'`,
        );
      }
      return { name: match[1], path };
    });
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      findSecretReferences(item, joinPath(path, index)),
    );
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      findSecretReferences(item, joinPath(path, key)),
    );
  }
  return [];
}

/**
 * The secrets of `healthcheck.secrets`: resolves references for a probe
 * about to run and redacts the values out of anything it reports.
 * @public
 */
export class ProbeSecrets {
  readonly #values: ReadonlyMap<string, string>;
  readonly #echoes: EchoRedactor;

  /** The secrets under `healthcheck.secrets` of the backend's config. */
  static fromConfig(config: Config): ProbeSecrets {
    const section = config.getOptionalConfig('healthcheck.secrets');
    const values: Record<string, string> = {};
    for (const name of section?.keys() ?? []) {
      values[name] = section!.getString(name);
    }
    return new ProbeSecrets(values);
  }

  constructor(values: Record<string, string>) {
    this.#values = new Map(Object.entries(values));
    this.#echoes = new EchoRedactor(
      [...this.#values.values()].flatMap(secretEchoForms),
    );
  }

  /** The names of the configured secrets, sorted; never the values. */
  names(): string[] {
    return [...this.#values.keys()].sort();
  }

  /**
   * Refuses a check configuration that references a secret that is not
   * configured, naming the secret and where it is used. Call when a check
   * is loaded, so the mistake shows there rather than in every run.
   */
  assertKnownReferences(config: unknown, path = ''): void {
    const unknown = findSecretReferences(config, path).filter(
      reference => !this.#values.has(reference.name),
    );
    if (unknown.length > 0) {
      const listed = unknown
        .map(
          reference =>
            `'${reference.name}' (in ${reference.path || 'the value'})`,
        )
        .join(', ');
      throw new InputError(
        `Unknown secret ${listed}: add ${
          unknown.length === 1 ? 'it' : 'them'
        } under healthcheck.secrets in the app config`,
      );
    }
  }

  /**
   * The text with every `${secret:NAME}` replaced by its value. Throws
   * {@link @backstage/errors#InputError} naming the secret when one is not
   * configured.
   */
  resolve(text: string, path = ''): string {
    this.assertKnownReferences(text, path);
    return text.replace(
      SECRET_REFERENCE,
      (_reference, name: string) => this.#values.get(name)!,
    );
  }

  /** Whether the text references any secret. */
  references(text: string): boolean {
    return findSecretReferences(text).length > 0;
  }

  /**
   * The text with every secret value replaced by `***`: as itself,
   * URL-encoded, JSON-escaped, HTML-escaped, upper and lower case, hex and
   * base64 (also inside a longer base64 text). See `secretEchoForms`.
   */
  redact(text: string): string {
    return this.#echoes.redact(text, REDACTED);
  }

  /** A probe result with every secret value redacted from every text in it. */
  redactResult(result: ProbeResult): ProbeResult {
    if (this.#echoes.isEmpty) {
      return result;
    }
    return this.#redactDeep(result) as ProbeResult;
  }

  #redactDeep(value: unknown): unknown {
    if (typeof value === 'string') {
      return this.redact(value);
    }
    if (Array.isArray(value)) {
      return value.map(item => this.#redactDeep(item));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          this.#redactDeep(item),
        ]),
      );
    }
    return value;
  }
}
