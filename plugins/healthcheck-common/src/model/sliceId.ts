/**
 * What a slice is: one check, on one system, in one environment.
 * @public
 */
export interface SliceKey {
  checkId: string;
  /** The system's entity ref, such as `system:default/payments`. */
  systemRef: string;
  /** The canonical environment name. */
  environment: string;
}

/**
 * The first part of every slice id.
 * @public
 */
export const SLICE_ID_PREFIX = 'healthcheck';

const SEPARATOR = ':';
const UNESCAPES: Readonly<Record<string, string>> = {
  '%25': '%',
  '%3A': ':',
  '%2F': '/',
};
const NEEDS_ESCAPE = /[%:/]/;
const ESCAPE_SEQUENCE = /%(?:25|3A|2F)/g;

function escapePart(part: string): string {
  if (!NEEDS_ESCAPE.test(part)) {
    return part;
  }
  // "%" first, so the escapes added after it stay as they are.
  return part
    .replaceAll('%', '%25')
    .replaceAll(':', '%3A')
    .replaceAll('/', '%2F');
}

/**
 * The id of a slice: `healthcheck:<check>:<system>:<environment>`. In each
 * part `%`, `:` and `/` are percent-encoded (`%25`, `%3A`, `%2F`) and every
 * other character is kept as it is, spaces and non-ASCII included, so ids
 * stay readable in logs and any string round-trips through
 * {@link decodeSliceId}, even an empty one or a lone surrogate.
 *
 * Ids are canonical: one key has exactly one id, so an id can be a primary
 * key. Parts are taken as given; canonicalize refs and names first.
 * @public
 */
export function encodeSliceId(key: SliceKey): string {
  return [
    SLICE_ID_PREFIX,
    escapePart(key.checkId),
    escapePart(key.systemRef),
    escapePart(key.environment),
  ].join(SEPARATOR);
}

function decodePart(id: string, part: string, what: string): string {
  const unescaped = part.replace(ESCAPE_SEQUENCE, '');
  let stray: string | undefined;
  if (unescaped.includes('/')) {
    stray = 'an unescaped "/"';
  } else if (unescaped.includes('%')) {
    stray = 'a "%" that is not %25, %3A or %2F';
  }
  if (stray) {
    throw new TypeError(
      `Slice id ${JSON.stringify(
        id,
      )} is not canonical: its ${what} holds ${stray}`,
    );
  }
  return part.replace(ESCAPE_SEQUENCE, s => UNESCAPES[s]);
}

/**
 * The slice an id stands for; the inverse of {@link encodeSliceId}.
 *
 * @throws TypeError for anything `encodeSliceId` would not produce: another
 *   prefix, a part too many or too few, an unescaped `/`, or a `%` that is not
 *   one of the three escapes (lower-case hex included).
 * @public
 */
export function decodeSliceId(id: string): SliceKey {
  const parts = id.split(SEPARATOR);
  if (parts.length !== 4 || parts[0] !== SLICE_ID_PREFIX) {
    throw new TypeError(
      `Slice id ${JSON.stringify(
        id,
      )} is not of the form ${SLICE_ID_PREFIX}:<check>:<system>:<environment>`,
    );
  }
  return {
    checkId: decodePart(id, parts[1], 'check id'),
    systemRef: decodePart(id, parts[2], 'system ref'),
    environment: decodePart(id, parts[3], 'environment'),
  };
}

/**
 * Like {@link decodeSliceId}, but `undefined` for an id that is not a slice
 * id (one of an older format, say) instead of throwing.
 * @public
 */
export function tryDecodeSliceId(id: string): SliceKey | undefined {
  try {
    return decodeSliceId(id);
  } catch {
    return undefined;
  }
}
