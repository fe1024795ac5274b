/*
 * Target templates. A check's target may hold `{{ system.name }}` and
 * `{{ environment.name }}`, and their values come from other teams'
 * entities (a System's name, an environment a member adds). So a value must
 * never decide where the probe goes, nor which secret travels with it:
 *
 * - The template is split once into its parts (scheme, user info, host,
 *   port, path, query, fragment; `host:port`; a DNS name), placeholders as
 *   opaque tokens. A placeholder in the scheme, user info or port is a
 *   template error.
 * - In the host a value must be one DNS label, so it can neither add a
 *   label nor end the host; in the path, query and fragment it is
 *   percent-encoded as a URI component.
 * - The template itself must fix the end of its host (its last two labels),
 *   or a value would pick the host outright; an operator may allow that
 *   with `healthcheck.targets.allowPlaceholderHosts`.
 * - After rendering, the target is parsed again, and a scheme or host other
 *   than the template's refuses the slice: defence in depth.
 */

/**
 * What a target's placeholders are replaced with for one slice.
 * @public
 */
export interface TargetTemplateValues {
  /** The system entity's `metadata.name`. */
  systemName: string;
  /** The environment's canonical (lower-case) name. */
  environmentName: string;
}

/**
 * The placeholders a target may use, as written between `{{` and `}}`.
 * @public
 */
export const TARGET_TEMPLATE_VARIABLES: readonly string[] = [
  'system.name',
  'environment.name',
];

/**
 * How a target template is read and checked.
 * @public
 */
export interface TargetTemplateOptions {
  /**
   * The check's probe type, which says what its target is: `http`, a URL;
   * `tcp` and `tls`, `host:port` (optionally behind `tcp://` or `tls://`);
   * `dns`, a DNS name. Vigil does not know the target of other types (or of
   * none given): there every value must be one DNS label, which cannot
   * carry a delimiter of any URL or address syntax.
   */
  probeType?: string;
  /**
   * Whether a placeholder may decide the host: `https://{{ system.name }}/`,
   * or a host that does not end in two labels of the template's own. Off
   * by default (`healthcheck.targets.allowPlaceholderHosts`).
   */
  allowPlaceholderHosts?: boolean;
}

/**
 * The target of one slice, or why the slice is refused.
 * @public
 */
export type RenderedTarget =
  | { ok: true; target: string }
  | { ok: false; reason: string };

/**
 * A target template split once into its parts, for rendering it for many
 * slices.
 * @public
 */
export interface CompiledTargetTemplate {
  /**
   * What is wrong with the template itself, as
   * {@link findTargetTemplateProblems} says; when there is anything, every
   * slice is refused.
   */
  readonly problems: readonly string[];
  /** The target of one slice: joining precompiled pieces, then one parse. */
  render(values: TargetTemplateValues): RenderedTarget;
}

type Variable = 'system.name' | 'environment.name';

/**
 * Where a placeholder lands, which says how its value is written: `host`,
 * one lower-case DNS label; `path`, `component` (query, fragment),
 * percent-encoded; `label`, one DNS label as written (a target Vigil cannot
 * parse).
 */
type Part = 'host' | 'path' | 'component' | 'label';

interface Placeholder {
  variable: Variable;
  /** As written, braces included. */
  written: string;
  /** 0-based, in the template. */
  position: number;
}

/** What reading a template by its shape found. */
interface Shape {
  problems: string[];
  /** Per placeholder, in order. */
  parts: Part[];
  /**
   * The host the template fixes, split at its placeholders (a one-piece
   * list when it has none); normalised as the check below reads hosts.
   */
  hostPieces?: string[];
  /** Why a rendered target does not go to `host`; `undefined` when it does. */
  verify?: (target: string, host: string) => string | undefined;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** One DNS label, lower case: what a value must be wherever it may shape a host. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A label of a DNS name as the templates write them (`_sip._tcp` included). */
const NAME_LABEL = /^[A-Za-z0-9_-]+$/;
/** How many trailing labels of its host a template must fix. */
const FIXED_HOST_LABELS = 2;
const ALLOW_PLACEHOLDER_HOSTS = 'healthcheck.targets.allowPlaceholderHosts';

/**
 * Splits a target template once, so that rendering it per slice is joining
 * precompiled pieces, each value written for the part it lands in, and one
 * parse to confirm the scheme and host. A template without placeholders
 * renders as it is.
 * @public
 */
export function compileTargetTemplate(
  template: string,
  options: TargetTemplateOptions = {},
): CompiledTargetTemplate {
  const { literals, placeholders, problems } = tokenize(template);
  if (placeholders.length === 0 && problems.length === 0) {
    const rendered: RenderedTarget = { ok: true, target: template };
    return { problems, render: () => rendered };
  }
  const shape =
    problems.length === 0
      ? readShape(template, literals, placeholders, options)
      : undefined;
  problems.push(...(shape?.problems ?? []));
  if (problems.length > 0 || !shape) {
    const refused: RenderedTarget = {
      ok: false,
      reason: `its target template cannot be used: ${problems.join('; ')}`,
    };
    return { problems, render: () => refused };
  }
  const { parts, hostPieces, verify } = shape;
  return {
    problems,
    render(values) {
      let target = literals[0];
      let host = hostPieces?.[0] ?? '';
      let hostPiece = 1;
      for (let i = 0; i < placeholders.length; i++) {
        const { variable, written } = placeholders[i];
        const value =
          variable === 'system.name'
            ? values.systemName
            : values.environmentName;
        let text: string;
        const part = parts[i];
        if (part === 'path' || part === 'component') {
          if (part === 'path' && (value === '.' || value === '..')) {
            return refuse(variable, value, 'it would be a dot segment');
          }
          text = encodeURIComponent(value);
        } else {
          const label = value.toLowerCase();
          if (!DNS_LABEL.test(label)) {
            return refuse(
              variable,
              value,
              `${written} ${
                part === 'host'
                  ? 'is in the host'
                  : 'is in a target Vigil cannot parse'
              }, where a value must be one DNS label (1 to 63 letters, digits and "-", no "." or "_")`,
            );
          }
          if (part === 'host') {
            text = label;
            host += label + hostPieces![hostPiece++];
          } else {
            text = value;
          }
        }
        target += text + literals[i + 1];
      }
      const wrong = verify?.(target, host);
      return wrong === undefined
        ? { ok: true, target }
        : {
            ok: false,
            reason: `its target ${JSON.stringify(target)} ${wrong}`,
          };
    },
  };
}

function refuse(
  variable: Variable,
  value: string,
  why: string,
): RenderedTarget {
  const whose =
    variable === 'system.name' ? "the system's name" : 'the environment name';
  return {
    ok: false,
    reason: `${whose} ${JSON.stringify(
      value,
    )} cannot go into its target: ${why}`,
  };
}

/**
 * The target of one slice, as {@link compileTargetTemplate} renders it.
 * @public
 */
export function renderTargetTemplate(
  template: string,
  values: TargetTemplateValues,
  options: TargetTemplateOptions = {},
): RenderedTarget {
  return compileTargetTemplate(template, options).render(values);
}

/**
 * Why a target template cannot be used, each reason on its own, 0-based
 * positions where they help; empty when it is fine. Always: placeholders
 * other than {@link TARGET_TEMPLATE_VARIABLES}, and `{{` without its `}}`.
 * With a `probeType`, also where placeholders sit: never in a URL's scheme,
 * user info or port, nor in a port or IP address; in a host only as whole
 * labels or parts of labels, and only when the template fixes the host's
 * last two labels (unless `allowPlaceholderHosts`). A template without
 * placeholders is not read further: nothing in it comes from elsewhere.
 * For the catalog processor, the API and the form alike.
 * @public
 */
export function findTargetTemplateProblems(
  template: string,
  options: TargetTemplateOptions = {},
): string[] {
  return [...compileTargetTemplate(template, options).problems];
}

function tokenize(template: string) {
  const literals: string[] = [];
  const placeholders: Placeholder[] = [];
  const problems: string[] = [];
  let rest = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const variable = match[1];
    if (variable === 'system.name' || variable === 'environment.name') {
      literals.push(template.slice(rest, match.index));
      placeholders.push({ variable, written: match[0], position: match.index });
      rest = match.index + match[0].length;
    } else {
      problems.push(
        `unknown placeholder ${JSON.stringify(match[0])} at position ${
          match.index
        }; use ${TARGET_TEMPLATE_VARIABLES.map(v => `{{ ${v} }}`).join(
          ' or ',
        )}`,
      );
    }
  }
  literals.push(template.slice(rest));
  const unclosed = template.replace(PLACEHOLDER, m => ' '.repeat(m.length));
  const open = unclosed.indexOf('{{');
  if (open !== -1) {
    problems.push(`"{{" at position ${open} is never closed with "}}"`);
  }
  return { literals, placeholders, problems };
}

/**
 * The template with each placeholder replaced by a marker: letters and
 * digits that no parser changes or escapes and that the template does not
 * hold, so where a marker ends up is where its placeholder lands.
 */
class Markers {
  readonly text: string;
  readonly #pattern: RegExp;

  constructor(template: string, literals: string[]) {
    let base = 'vigil';
    while (template.toLowerCase().includes(base)) {
      base += 'x';
    }
    let text = literals[0];
    for (let i = 1; i < literals.length; i++) {
      text += `${base}${i - 1}${base}${literals[i]}`;
    }
    this.text = text;
    this.#pattern = new RegExp(`${base}(\\d+)${base}`, 'g');
  }

  /** The placeholders (their indexes) in a part of the parsed template. */
  in(part: string): number[] {
    return [...part.matchAll(this.#pattern)].map(m => Number(m[1]));
  }

  /** The part split at its markers: the literal pieces around them. */
  split(part: string): string[] {
    return part.split(this.#pattern).filter((_, i) => i % 2 === 0);
  }

  /** The part as written, its markers back to `{{ variable }}`. */
  unmark(part: string, placeholders: Placeholder[]): string {
    return part.replace(
      this.#pattern,
      (_, i) => placeholders[Number(i)].written,
    );
  }
}

function readShape(
  template: string,
  literals: string[],
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
): Shape {
  const markers = new Markers(template, literals);
  switch (options.probeType) {
    case 'http':
      return readUrl(markers, placeholders, options);
    case 'tcp':
    case 'tls':
      return readHostPort(markers, placeholders, options, options.probeType);
    case 'dns':
      return readDnsName(markers, placeholders, options);
    default:
      return { problems: [], parts: placeholders.map(() => 'label') };
  }
}

function readUrl(
  markers: Markers,
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
): Shape {
  let url: URL;
  try {
    url = new URL(markers.text);
  } catch {
    return failed(
      inPort(markers, placeholders) ??
        `${JSON.stringify(
          markers.unmark(markers.text, placeholders),
        )} is not a URL with its placeholders where they are; a placeholder may stand for labels of the host name, or sit in the path, query or fragment`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const where = markers.in(url.protocol);
    return failed(
      where.length > 0
        ? `${placeholders[where[0]].written} at position ${
            placeholders[where[0]].position
          } is in the scheme; write http:// or https:// in the template`
        : `an http check's target is an http:// or https:// URL, not ${url.protocol}`,
    );
  }
  const parts: Part[] = [];
  const problems: string[] = [];
  const found = new Set<number>();
  const refuseIn = (text: string, part: string) => {
    for (const index of markers.in(text)) {
      found.add(index);
      const { written, position } = placeholders[index];
      problems.push(
        `${written} at position ${position} is in the ${part}, where a value could send the probe and its credentials elsewhere; use it in the host or the path`,
      );
    }
  };
  const accept = (text: string, part: Part) => {
    for (const index of markers.in(text)) {
      found.add(index);
      parts[index] = part;
    }
  };
  refuseIn(url.username, 'user name');
  refuseIn(url.password, 'password');
  accept(url.host, 'host');
  accept(url.pathname, 'path');
  accept(url.search, 'component');
  accept(url.hash, 'component');
  problems.push(...lost(placeholders, found));
  const labels = url.hostname.replace(/\.$/, '').split('.');
  // Punycode keeps the ASCII of a label, markers included, but renders
  // each value into another encoding: such a host could never match.
  if (labels.some(l => l.startsWith('xn--') && markers.in(l).length > 0)) {
    problems.push(
      `the host ${JSON.stringify(
        markers.unmark(url.hostname, placeholders),
      )} has a placeholder in a label with non-ASCII letters; put it in a label of its own`,
    );
  }
  problems.push(
    ...placeholderHostProblems(labels, markers, placeholders, options),
  );
  if (problems.length > 0) {
    return failed(...problems);
  }
  const protocol = url.protocol;
  return {
    problems,
    parts,
    hostPieces: markers.split(url.host),
    verify: (target, host) => {
      let rendered: URL;
      try {
        rendered = new URL(target);
      } catch {
        return 'is not a URL';
      }
      if (rendered.protocol !== protocol) {
        return `has the scheme ${rendered.protocol}, not ${protocol}`;
      }
      return rendered.host === host
        ? undefined
        : `goes to the host ${JSON.stringify(
            rendered.host,
          )}, not ${JSON.stringify(host)}`;
    },
  };
}

/** Why the template fails: a placeholder in a URL's port, if that is why. */
function inPort(
  markers: Markers,
  placeholders: Placeholder[],
): string | undefined {
  const authority = /^[^:/?#]*:\/\/([^/?#\\]*)/.exec(markers.text)?.[1];
  if (authority === undefined) {
    return undefined;
  }
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const port = hostAndPort.slice(hostAndPort.lastIndexOf(':') + 1);
  const where = hostAndPort.includes(':') ? markers.in(port) : [];
  if (where.length === 0) {
    return undefined;
  }
  const { written, position } = placeholders[where[0]];
  return `${written} at position ${position} is in the port; write the port in the template`;
}

/** What `host:port` a `tcp` or `tls` probe reads (the probes' own syntax). */
const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/[\]]+))(?::(\d{1,5}))?\/?$/;

function readHostPort(
  markers: Markers,
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
  scheme: string,
): Shape {
  const prefix = `${scheme}://`;
  const text = markers.text;
  const rest = text.startsWith(prefix) ? text.slice(prefix.length) : text;
  const match = HOST_PORT.exec(rest);
  const host = match?.[2];
  if (!match || host === undefined) {
    const port = /:([^:\]/]*)\/?$/.exec(rest)?.[1];
    const where = markers.in(port ?? '');
    return failed(
      where.length > 0
        ? `${placeholders[where[0]].written} at position ${
            placeholders[where[0]].position
          } is in the port; write the port in the template`
        : `${JSON.stringify(
            markers.unmark(text, placeholders),
          )} is not host:port (or ${prefix}host:port) with a placeholder only in a host name; a ${scheme} target's placeholders stand for labels of the host`,
    );
  }
  const problems = hostNameProblems(
    host,
    `the host ${JSON.stringify(
      markers.unmark(host, placeholders),
    )} is not a host name; a placeholder may only stand for labels of one`,
    markers,
    placeholders,
    options,
  );
  if (problems.length > 0) {
    return failed(...problems);
  }
  const hostStart = text.length - rest.length;
  const before = text.slice(0, hostStart);
  const after = rest.slice(host.length);
  return {
    problems,
    parts: placeholders.map(() => 'host'),
    hostPieces: markers.split(host),
    verify: (target, expected) => {
      const rendered = target.startsWith(before)
        ? HOST_PORT.exec(target.slice(before.length))
        : null;
      if (!rendered || rendered[2] !== expected) {
        return `does not go to ${JSON.stringify(expected)}`;
      }
      return target.endsWith(after) ? undefined : 'has another port';
    },
  };
}

function readDnsName(
  markers: Markers,
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
): Shape {
  const labels = markers.text.replace(/\.$/, '').split('.');
  const problems = hostNameProblems(
    markers.text,
    `${JSON.stringify(
      markers.unmark(markers.text, placeholders),
    )} is not a DNS name; a dns target's placeholders stand for labels of the name`,
    markers,
    placeholders,
    options,
  );
  if (problems.length > 0) {
    return failed(...problems);
  }
  return {
    problems,
    parts: placeholders.map(() => 'host'),
    hostPieces: markers.split(markers.text),
    verify: (target, expected) => {
      const rendered = target.replace(/\.$/, '').split('.');
      return target === expected &&
        rendered.length === labels.length &&
        rendered.every(label => NAME_LABEL.test(label))
        ? undefined
        : `is not the DNS name ${JSON.stringify(expected)}`;
    },
  };
}

/**
 * Why a host name (markers in it) will not do: not a name at all
 * (`notAName`), or one whose placeholders would pick the host.
 */
function hostNameProblems(
  name: string,
  notAName: string,
  markers: Markers,
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
): string[] {
  const labels = name.replace(/\.$/, '').split('.');
  if (!labels.every(label => NAME_LABEL.test(label))) {
    return [notAName];
  }
  return placeholderHostProblems(labels, markers, placeholders, options);
}

/**
 * Why placeholders would pick the host: the template must fix the host's
 * last labels, so a value can only choose among names under the template
 * author's own domain.
 */
function placeholderHostProblems(
  labels: string[],
  markers: Markers,
  placeholders: Placeholder[],
  options: TargetTemplateOptions,
): string[] {
  if (options.allowPlaceholderHosts) {
    return [];
  }
  let fixed = 0;
  while (
    fixed < labels.length &&
    markers.in(labels[labels.length - 1 - fixed]).length === 0
  ) {
    fixed++;
  }
  if (fixed === labels.length || fixed >= FIXED_HOST_LABELS) {
    return [];
  }
  const host = markers.unmark(labels.join('.'), placeholders);
  return [
    `the host ${JSON.stringify(
      host,
    )} is picked by a placeholder, so whoever names a system or an environment could send this probe, with its headers and secrets, to a host of their choosing; end the host with at least ${FIXED_HOST_LABELS} labels of your own, as in https://{{ environment.name }}.payments.example.com/health, or move the placeholder into the path (an operator may allow such hosts with ${ALLOW_PLACEHOLDER_HOSTS})`,
  ];
}

function lost(placeholders: Placeholder[], found: Set<number>): string[] {
  return placeholders
    .filter((_, i) => !found.has(i))
    .map(
      ({ written, position }) =>
        `${written} at position ${position} lands nowhere once the URL is read (a "." or ".." path segment swallows it); move it`,
    );
}

function failed(...problems: string[]): Shape {
  return { problems, parts: [] };
}
