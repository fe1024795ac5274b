/**
 * `${secret:NAME}` references in check configuration, resolved from the
 * Backstage config key `healthcheck.secrets`. Each secret says where it may
 * go: the origins its value may be sent to and, optionally, the catalog
 * namespaces whose checks may use it. Checks are stored and returned with the
 * references, never the values; values exist only inside a running probe,
 * which resolves them only for an allowed origin, and every text a probe
 * hands back goes through `redact`.
 */
import { isIP } from 'node:net';
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { ProbeResult } from '../probes';
import { EchoRedactor, secretEchoForms } from './secretEchoes';
import { parseHostPort } from './targets';

/** `${secret:NAME}`; the name part is checked separately for a clear error. */
const SECRET_REFERENCE = /\$\{secret:([^}]*)\}/g;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const SECRET_NAME_RULE =
  "a secret name starts with a letter or '_' and holds letters, digits, '_', '.' and '-'";
/** A catalog namespace: a DNS label, compared without regard to case. */
const NAMESPACE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/i;
const DEFINITION_FIELDS = new Set([
  'value',
  'allowedOrigins',
  'allowedNamespaces',
]);
/** The schemes an origin can have, with their default ports; `tcp` covers tcp and tls sends. */
const DEFAULT_PORTS: ReadonlyMap<string, number | undefined> = new Map([
  ['http', 80],
  ['https', 443],
  ['tcp', undefined],
]);
/** `scheme://host[:port]`, optionally `/`; the host is normalised after. */
const ORIGIN_TEXT =
  /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(\*\.)?(\[[0-9A-Fa-f:.]+\]|[^\s/:?#@[\]\\]+)(?::(\d{1,5}))?\/?$/;

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

/**
 * A secret as `healthcheck.secrets.<NAME>` declares it.
 * @public
 */
export interface ProbeSecretDefinition {
  value: string;
  /**
   * Where the value may be sent: origins such as `https://api.example.com`
   * (port 443 implied), `https://api.example.com:8443`,
   * `tcp://db.example.com:5432` (for `tcp` and `tls` checks; the port is
   * required), `https://*.example.com` (`*` is exactly one leading label,
   * under a name of at least two labels), or `'*'` alone for anywhere.
   */
  allowedOrigins: readonly string[];
  /** The catalog namespaces whose checks may use it; every one when absent. */
  allowedNamespaces?: readonly string[];
}

/**
 * Where a check would use its secrets, for {@link ProbeSecrets.findUseProblems}.
 * @public
 */
export interface SecretUse {
  /**
   * Where the values would be sent: {@link targetOrigin} of the check's type
   * and its target as rendered for one slice. `undefined` (no origin) allows
   * only secrets allowed everywhere.
   */
  origin: string | undefined;
  /**
   * The origin is not known until the target is rendered for a slice (its
   * host or port is a placeholder): judge names and namespaces now, and the
   * origin of each slice when it is derived.
   */
  originPerSlice?: boolean;
  /** The catalog namespace of the check; without it, secrets limited to namespaces are refused. */
  namespace?: string;
  /** Written before every problem's path: `spec.config`. */
  path?: string;
}

/**
 * A secret reference a check may not use, and why.
 * @public
 */
export interface SecretUseProblem {
  /** Where the reference is: `spec.config.headers.Authorization`. */
  path: string;
  /** Where it is within the config, as keys and list indexes: `['headers', 'Authorization']`. */
  configPath: Array<string | number>;
  reason: string;
}

/** An origin in canonical parts; a wildcard's host is what follows `*.`. */
interface ParsedOrigin {
  scheme: string;
  host: string;
  port: number;
  wildcard: boolean;
}

interface SecretPolicy {
  value: string;
  /** `undefined`: any origin. */
  origins: ParsedOrigin[] | undefined;
  /** Lower case; `undefined`: any namespace. */
  namespaces: ReadonlySet<string> | undefined;
}

function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') {
    return `${path}[${key}]`;
  }
  return path ? `${path}.${key}` : key;
}

type FoundReference = SecretReference & {
  segments: Array<string | number>;
  malformed?: string;
};

/** Every reference in a JSON value, malformed ones marked rather than thrown. */
function scanReferences(
  value: unknown,
  path: string,
  segments: Array<string | number> = [],
): FoundReference[] {
  if (typeof value === 'string') {
    return [...value.matchAll(SECRET_REFERENCE)].map(match =>
      SECRET_NAME.test(match[1])
        ? { name: match[1], path, segments }
        : {
            name: match[1],
            path,
            segments,
            malformed: `malformed secret reference '${match[0]}': ${SECRET_NAME_RULE}`,
          },
    );
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      scanReferences(item, joinPath(path, index), [...segments, index]),
    );
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      scanReferences(item, joinPath(path, key), [...segments, key]),
    );
  }
  return [];
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
  return scanReferences(value, path).map(reference => {
    if (reference.malformed) {
      throw new InputError(
        `Malformed secret reference '\${secret:${reference.name}}' in ${
          reference.path || 'the value'
        }: ${SECRET_NAME_RULE}`,
      );
    }
    return { name: reference.name, path: reference.path };
  });
}

/** A host as the WHATWG URL parser writes it: lower case, IPv6 in brackets. */
function normaliseHost(host: string): string {
  const bracketed =
    host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return new URL(`http://${bracketed}`).hostname;
}

function formatOrigin(origin: ParsedOrigin): string {
  return `${origin.scheme}://${origin.wildcard ? '*.' : ''}${origin.host}:${
    origin.port
  }`;
}

/**
 * An origin in its parts; throws {@link @backstage/errors#InputError} with
 * the reason when the text is not one.
 */
function parseOrigin(text: string, allowWildcard: boolean): ParsedOrigin {
  const match = ORIGIN_TEXT.exec(text);
  const scheme = match?.[1].toLowerCase();
  if (!match || scheme === undefined || !DEFAULT_PORTS.has(scheme)) {
    throw new InputError(
      `'${text}' is not an origin: write http://host, https://host or tcp://host:port, with an optional port and no path`,
    );
  }
  const wildcard = match[2] !== undefined;
  if (wildcard && !allowWildcard) {
    throw new InputError(`'${text}' is not an origin: it holds a wildcard`);
  }
  const port =
    match[4] === undefined ? DEFAULT_PORTS.get(scheme) : Number(match[4]);
  if (port === undefined) {
    throw new InputError(`'${text}' needs a port: tcp origins have no default`);
  }
  if (port < 1 || port > 65535) {
    throw new InputError(`'${text}' has port ${port}, outside 1-65535`);
  }
  let host: string;
  try {
    host = normaliseHost(match[3]);
  } catch {
    throw new InputError(`'${text}' does not have a valid host`);
  }
  if (host.includes('*')) {
    throw new InputError(
      `'${text}' has '*' where only a whole leading label may be one (https://*.example.com)`,
    );
  }
  if (
    wildcard &&
    (isIP(host.replace(/^\[|\]$/g, '')) !== 0 || !host.includes('.'))
  ) {
    throw new InputError(
      `'${text}' has a wildcard over ${host}: '*.' must precede a domain name of at least two labels`,
    );
  }
  return { scheme, host, port, wildcard };
}

/** The origin a check would send to; one that does not parse is none. */
function parseUseOrigin(text: string | undefined): ParsedOrigin | undefined {
  if (text === undefined) {
    return undefined;
  }
  try {
    return parseOrigin(text, false);
  } catch {
    return undefined;
  }
}

function originAllows(allowed: ParsedOrigin, origin: ParsedOrigin): boolean {
  if (allowed.scheme !== origin.scheme || allowed.port !== origin.port) {
    return false;
  }
  if (!allowed.wildcard) {
    return allowed.host === origin.host;
  }
  const label = origin.host.slice(0, -(allowed.host.length + 1));
  return (
    origin.host.endsWith(`.${allowed.host}`) &&
    label.length > 0 &&
    !label.includes('.')
  );
}

/**
 * Where a probe of `probeType` sends what it is configured with, for the
 * rendered `target`: the origin of an `http` target with its port made
 * explicit (`https://api.example.com:443`), or `tcp://host:port` for `tcp`
 * and `tls` targets (as `parseHostPort` reads them; `tls` defaults to 443).
 * Hosts are lower case, IPv6 in brackets. `undefined` for a target that
 * does not parse and for types that send nothing configurable (`dns`, and
 * types added by modules).
 * @public
 */
export function targetOrigin(
  probeType: string,
  target: string,
): string | undefined {
  try {
    if (probeType === 'http') {
      const url = new URL(target);
      const scheme = url.protocol.slice(0, -1);
      if (scheme !== 'http' && scheme !== 'https') {
        return undefined;
      }
      return formatOrigin({
        scheme,
        host: url.hostname,
        port: url.port ? Number(url.port) : DEFAULT_PORTS.get(scheme)!,
        wildcard: false,
      });
    }
    if (probeType === 'tcp' || probeType === 'tls') {
      const { host, port } = parseHostPort(
        target,
        probeType === 'tls'
          ? { scheme: 'tls', defaultPort: 443 }
          : { scheme: 'tcp' },
      );
      return formatOrigin({
        scheme: 'tcp',
        host: normaliseHost(host),
        port,
        wildcard: false,
      });
    }
  } catch {
    // A target that does not parse has no origin; its own check says why.
  }
  return undefined;
}

/**
 * The origin of a target template, as far as the template fixes it: the
 * origin of any rendering when no placeholder stands before an `http`
 * target's path (or anywhere in a `tcp` or `tls` target, which is all host
 * and port); otherwise `perSlice`, as only the rendered target of each slice
 * tells.
 * @public
 */
export function templateOrigin(
  probeType: string,
  template: string,
): { origin: string | undefined; perSlice: boolean } {
  let authorityEnd = template.length;
  if (probeType === 'http') {
    const afterScheme = template.indexOf('://');
    const pathStart =
      afterScheme === -1 ? -1 : template.slice(afterScheme + 3).search(/[/?#]/);
    if (pathStart !== -1) {
      authorityEnd = afterScheme + 3 + pathStart;
    }
  }
  if (template.slice(0, authorityEnd).includes('{{')) {
    return { origin: undefined, perSlice: true };
  }
  // Placeholders in the path change nothing about the origin.
  const rendered = template.replace(/\{\{[^{}]*\}\}/g, 'x');
  return { origin: targetOrigin(probeType, rendered), perSlice: false };
}

function missingValue(key: string): InputError {
  return new InputError(`${key}.value is missing: the secret has no value`);
}

function missingOrigins(key: string): InputError {
  return new InputError(
    `${key}.allowedOrigins is missing or empty: list the origins the secret may be sent to, such as ['https://api.example.com'], or ['*'] for anywhere`,
  );
}

/** The checked form of a definition; throws naming the config key. */
function compilePolicy(
  name: string,
  definition: string | ProbeSecretDefinition,
): SecretPolicy {
  const key = `healthcheck.secrets.${name}`;
  if (!SECRET_NAME.test(name)) {
    throw new InputError(
      `${key}: no check could reference it, ${SECRET_NAME_RULE}`,
    );
  }
  if (typeof definition === 'string') {
    return { value: definition, origins: undefined, namespaces: undefined };
  }
  if (typeof definition.value !== 'string') {
    throw missingValue(key);
  }
  const allowedOrigins = definition.allowedOrigins as unknown;
  if (!Array.isArray(allowedOrigins) || allowedOrigins.length === 0) {
    throw missingOrigins(key);
  }
  let origins: ParsedOrigin[] | undefined;
  if (allowedOrigins.includes('*')) {
    if (allowedOrigins.length > 1) {
      throw new InputError(
        `${key}.allowedOrigins: '*' allows every origin, so it stands alone`,
      );
    }
  } else {
    origins = allowedOrigins.map((origin, index) => {
      try {
        return parseOrigin(String(origin), true);
      } catch (error) {
        throw new InputError(
          `${key}.allowedOrigins[${index}]: ${(error as Error).message}`,
        );
      }
    });
  }
  let namespaces: Set<string> | undefined;
  if (definition.allowedNamespaces !== undefined) {
    const allowedNamespaces = definition.allowedNamespaces as unknown;
    if (!Array.isArray(allowedNamespaces) || allowedNamespaces.length === 0) {
      throw new InputError(
        `${key}.allowedNamespaces is empty: list catalog namespaces, or leave it out to allow every namespace`,
      );
    }
    namespaces = new Set(
      allowedNamespaces.map((namespace, index) => {
        if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
          throw new InputError(
            `${key}.allowedNamespaces[${index}]: '${namespace}' is not a catalog namespace`,
          );
        }
        return namespace.toLowerCase();
      }),
    );
  }
  return { value: definition.value, origins, namespaces };
}

/**
 * One entry of `healthcheck.secrets`: the plain string form, or the object
 * form with its fields checked by name.
 */
function readDefinition(
  section: Config,
  name: string,
): string | ProbeSecretDefinition {
  const key = `healthcheck.secrets.${name}`;
  const raw = section.getOptional(name);
  if (typeof raw === 'string') {
    return raw;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InputError(
      `${key} must be an object { value, allowedOrigins, allowedNamespaces? }`,
    );
  }
  const entry = section.getConfig(name);
  for (const field of entry.keys()) {
    if (!DEFINITION_FIELDS.has(field)) {
      throw new InputError(
        `${key}: unknown field '${field}'; a secret has value, allowedOrigins and allowedNamespaces`,
      );
    }
  }
  if (!entry.has('value')) {
    throw missingValue(key);
  }
  if (!entry.has('allowedOrigins')) {
    throw missingOrigins(key);
  }
  return {
    value: entry.getString('value'),
    allowedOrigins: entry.getStringArray('allowedOrigins'),
    allowedNamespaces: entry.getOptionalStringArray('allowedNamespaces'),
  };
}

/**
 * The secrets of `healthcheck.secrets`: decides where each may be used,
 * resolves references for a probe about to run, and redacts the values out
 * of anything it reports.
 * @public
 */
export class ProbeSecrets {
  readonly #policies: ReadonlyMap<string, SecretPolicy>;
  readonly #echoes: EchoRedactor;

  /**
   * The secrets under `healthcheck.secrets` of the backend's config. Throws
   * {@link @backstage/errors#InputError} naming the key of a bad entry, and
   * warns (naming the secret, never its value) of each entry in the
   * deprecated plain string form, which any check may send anywhere.
   */
  static fromConfig(
    config: Config,
    options: { logger?: LoggerService } = {},
  ): ProbeSecrets {
    const section = config.getOptionalConfig('healthcheck.secrets');
    const definitions: Record<string, string | ProbeSecretDefinition> = {};
    for (const name of section?.keys() ?? []) {
      const definition = readDefinition(section!, name);
      if (typeof definition === 'string') {
        options.logger?.warn(
          `healthcheck.secrets.${name} is a plain value, a deprecated form that lets any check in any namespace send it to any origin; write it as { value, allowedOrigins, allowedNamespaces? } (allowedOrigins: ['*'] keeps that reach explicitly)`,
        );
      }
      definitions[name] = definition;
    }
    return new ProbeSecrets(definitions);
  }

  /**
   * A plain string is a value any check may send anywhere, as the
   * deprecated config form means. Throws
   * {@link @backstage/errors#InputError} naming the key of a bad definition.
   */
  constructor(definitions: Record<string, string | ProbeSecretDefinition>) {
    this.#policies = new Map(
      Object.entries(definitions).map(([name, definition]) => [
        name,
        compilePolicy(name, definition),
      ]),
    );
    this.#echoes = new EchoRedactor(
      [...this.#policies.values()].flatMap(policy =>
        secretEchoForms(policy.value),
      ),
    );
  }

  /** The names of the configured secrets, sorted; never the values. */
  names(): string[] {
    return [...this.#policies.keys()].sort();
  }

  /**
   * Every secret reference in a check's configuration that the check may
   * not use, with where it is and why: a malformed reference; a name that
   * is not configured or not allowed for `use.namespace` (one message for
   * both, so that refusals do not tell which secrets exist); a secret whose
   * `allowedOrigins` do not include `use.origin`. Empty when all may be
   * used. For when a check is loaded, once per rendered target.
   */
  findUseProblems(config: unknown, use: SecretUse): SecretUseProblem[] {
    const origin = parseUseOrigin(use.origin);
    const problems = new Map<string, SecretUseProblem>();
    for (const reference of scanReferences(config, use.path ?? '')) {
      const reason =
        reference.malformed ??
        this.#refusal(reference.name, {
          origin: use.originPerSlice ? 'per slice' : origin,
          namespace: use.namespace ?? null,
        });
      if (reason !== undefined) {
        problems.set(`${reference.path}\n${reason}`, {
          path: reference.path,
          configPath: reference.segments,
          reason,
        });
      }
    }
    return [...problems.values()];
  }

  /**
   * The text with every `${secret:NAME}` replaced by its value, for a probe
   * about to send it to `use.origin` (see {@link targetOrigin}). Throws
   * {@link @backstage/errors#InputError}, naming the secret and never its
   * value, for a secret that is not configured or whose `allowedOrigins` do
   * not include the origin: a check that got past loading still cannot
   * send a secret elsewhere. The namespace was judged when it was loaded.
   */
  resolve(
    text: string,
    use: { path: string; origin: string | undefined },
  ): string {
    const origin = parseUseOrigin(use.origin);
    for (const reference of findSecretReferences(text, use.path)) {
      const reason = this.#refusal(reference.name, { origin });
      if (reason !== undefined) {
        throw new InputError(`${reference.path || 'the value'}: ${reason}`);
      }
    }
    return text.replace(
      SECRET_REFERENCE,
      (_reference, name: string) => this.#policies.get(name)!.value,
    );
  }

  /** Whether the text references any secret. */
  references(text: string): boolean {
    return scanReferences(text, '').length > 0;
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

  /**
   * Why `name` may not be used there, or `undefined` when it may. A
   * `namespace` of `null` is a check without one; leaving it out skips the
   * namespace rule (run time, where it was judged at load).
   */
  #refusal(
    name: string,
    where: {
      origin: ParsedOrigin | undefined | 'per slice';
      namespace?: string | null;
    },
  ): string | undefined {
    const policy = this.#policies.get(name);
    const namespace =
      typeof where.namespace === 'string'
        ? where.namespace.toLowerCase()
        : where.namespace;
    if (
      !policy ||
      (policy.namespaces &&
        namespace !== undefined &&
        (namespace === null || !policy.namespaces.has(namespace)))
    ) {
      return `secret '${name}' is unknown, or not allowed for ${
        typeof namespace === 'string'
          ? `checks in namespace '${namespace}'`
          : 'this check'
      }`;
    }
    if (policy.origins === undefined || where.origin === 'per slice') {
      return undefined;
    }
    if (where.origin === undefined) {
      return `secret '${name}' may be sent only to its allowedOrigins, and this check's target has no origin to compare with them`;
    }
    const origin = where.origin;
    if (policy.origins.some(allowed => originAllows(allowed, origin))) {
      return undefined;
    }
    return `secret '${name}' may not be sent to ${formatOrigin(
      origin,
    )}: its allowedOrigins do not include that origin`;
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
