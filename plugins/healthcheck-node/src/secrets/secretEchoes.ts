/**
 * The forms a secret's value takes when a server echoes it back (escaped,
 * encoded, re-cased), and one pass over a text that finds every one of them.
 */

/**
 * Derived forms (case changes, HTML escapes, hex, base64) shorter than this
 * are not redacted: a two-character secret's base64 core is two characters,
 * and hiding every such pair would blank half of every body. The value
 * itself, URL-encoded and JSON-escaped, is redacted at any length.
 * @internal
 */
export const MIN_DERIVED_FORM_LENGTH = 8;

/**
 * How `"` and `'` come out of the escapers servers use most; `&`, `<` and
 * `>` are escaped alike by all of them.
 */
const HTML_QUOTE_STYLES: ReadonlyArray<Readonly<Record<string, string>>> = [
  { '"': '&quot;', "'": '&#39;' }, // React, lodash, Handlebars
  { '"': '&#34;', "'": '&#39;' }, // Go's html/template
  { '"': '&quot;', "'": '&#x27;' }, // Python's html.escape
  { '"': '"', "'": "'" }, // text content: quotes left alone
];

function htmlEscaped(value: string): string[] {
  return HTML_QUOTE_STYLES.map(quotes =>
    value.replace(/[&<>"']/g, character => {
      switch (character) {
        case '&':
          return '&amp;';
        case '<':
          return '&lt;';
        case '>':
          return '&gt;';
        default:
          return quotes[character];
      }
    }),
  );
}

function urlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The base64 characters that `bytes` alone decide when they sit inside a
 * longer text, such as a password inside Basic auth's `user:password`: one
 * run for each of the three offsets at which they can start within the
 * text's 3-byte groups. A base64 character holds 6 bits, so the characters
 * that also hold bits of the bytes before or after are left out; at most
 * 4 bits of the secret stay visible at either end.
 * @internal
 */
export function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(
      'base64',
    );
    const firstOwn = Math.ceil((8 * offset) / 6);
    const endOfOwn = Math.floor((8 * (offset + bytes.length)) / 6);
    cores.push(encoded.slice(firstOwn, endOfOwn));
  }
  return cores;
}

/**
 * Every form of a secret's value to redact, without repeats: the value, its
 * URL encoding and JSON escaping; and, where at least
 * {@link MIN_DERIVED_FORM_LENGTH} long, its upper- and lower-case versions,
 * its HTML escapes, its hex (lower and upper case), and its base64 (standard
 * and URL-safe), whole and as the cores that survive inside a longer
 * base64 text.
 * @internal
 */
export function secretEchoForms(value: string): string[] {
  if (value.length === 0) {
    return [];
  }
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const base64 = [bytes.toString('base64'), ...base64Cores(bytes)];
  const derived = [
    value.toUpperCase(),
    value.toLowerCase(),
    ...htmlEscaped(value),
    hex,
    hex.toUpperCase(),
    ...base64,
    ...base64.map(urlSafe),
  ].filter(form => form.length >= MIN_DERIVED_FORM_LENGTH);
  return [
    ...new Set([
      value,
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
      ...derived,
    ]),
  ];
}

/**
 * How many leading characters of each form the automaton holds; the rest of
 * a form is compared where its start was found. Bounds the automaton's
 * table at forms x KEY_LENGTH states, however long the secrets.
 */
const KEY_LENGTH = 16;

/**
 * Finds every occurrence of a fixed set of texts (the echo forms of all
 * secrets) in one pass over a text, and replaces each stretch they cover,
 * overlaps merged, by a placeholder. An Aho-Corasick automaton compiled to a
 * table, built once: redacting costs one table step per character of the
 * text, whatever the number of secrets, plus a comparison where a form's
 * first characters are found.
 * @internal
 */
export class EchoRedactor {
  /** Column of each UTF-16 code unit; 0 for those that start nothing. */
  readonly #columnOf: Int32Array;
  readonly #columns: number;
  /** The next state: `#next[state * #columns + column]`. */
  readonly #next: Int32Array;
  /** 1 + index into #keys of the key that ends at a state; 0 for none. */
  readonly #keyEndingAt: Int32Array;
  /** The nearest state on a state's failure chain where a key ends. */
  readonly #shorterKeyEndingAt: Int32Array;
  readonly #keys: ReadonlyArray<{ length: number; forms: string[] }>;

  constructor(forms: Iterable<string>) {
    const formsByKey = new Map<string, string[]>();
    for (const form of forms) {
      if (form.length === 0) {
        continue;
      }
      const key = form.slice(0, KEY_LENGTH);
      formsByKey.set(key, [...(formsByKey.get(key) ?? []), form]);
    }
    this.#keys = [...formsByKey].map(([key, keyForms]) => ({
      length: key.length,
      forms: keyForms,
    }));

    this.#columnOf = new Int32Array(0x10000);
    let columns = 1;
    let maxStates = 1;
    for (const key of formsByKey.keys()) {
      maxStates += key.length;
      for (let i = 0; i < key.length; i++) {
        const code = key.charCodeAt(i);
        if (this.#columnOf[code] === 0) {
          this.#columnOf[code] = columns++;
        }
      }
    }
    this.#columns = columns;

    // The trie of the keys.
    let next = new Int32Array(maxStates * columns);
    const keyEndingAt = new Int32Array(maxStates);
    let states = 1;
    [...formsByKey.keys()].forEach((key, index) => {
      let state = 0;
      for (let i = 0; i < key.length; i++) {
        const cell = state * columns + this.#columnOf[key.charCodeAt(i)];
        if (next[cell] === 0) {
          next[cell] = states++;
        }
        state = next[cell];
      }
      keyEndingAt[state] = index + 1;
    });
    next = next.slice(0, states * columns);

    // Breadth first, each state's failure (its longest proper suffix that
    // is a trie state) is known before its children need it; a missing
    // transition becomes the failure's, which makes the trie a table.
    const failure = new Int32Array(states);
    const shorterKeyEndingAt = new Int32Array(states);
    const queue: number[] = [];
    for (let column = 1; column < columns; column++) {
      if (next[column] !== 0) {
        queue.push(next[column]);
      }
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head];
      const fallback = failure[state];
      shorterKeyEndingAt[state] =
        keyEndingAt[fallback] !== 0 ? fallback : shorterKeyEndingAt[fallback];
      for (let column = 1; column < columns; column++) {
        const cell = state * columns + column;
        const child = next[cell];
        if (child === 0) {
          next[cell] = next[fallback * columns + column];
        } else {
          failure[child] = next[fallback * columns + column];
          queue.push(child);
        }
      }
    }
    this.#next = next;
    this.#keyEndingAt = keyEndingAt.slice(0, states);
    this.#shorterKeyEndingAt = shorterKeyEndingAt;
  }

  /** Whether there is nothing to find. */
  get isEmpty(): boolean {
    return this.#keys.length === 0;
  }

  /** The text with every stretch covered by a form replaced by `placeholder`. */
  redact(text: string, placeholder: string): string {
    if (this.#keys.length === 0) {
      return text;
    }
    const columnOf = this.#columnOf;
    const columns = this.#columns;
    const next = this.#next;
    const keyEndingAt = this.#keyEndingAt;
    const shorterKeyEndingAt = this.#shorterKeyEndingAt;
    // Flat [start, end, start, end, ...], allocated at the first find.
    let spans: number[] | undefined;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = next[state * columns + columnOf[text.charCodeAt(i)]];
      let ending = keyEndingAt[state] !== 0 ? state : shorterKeyEndingAt[state];
      while (ending !== 0) {
        const key = this.#keys[keyEndingAt[ending] - 1];
        const start = i + 1 - key.length;
        for (const form of key.forms) {
          if (form.length === key.length || text.startsWith(form, start)) {
            (spans ??= []).push(start, start + form.length);
          }
        }
        ending = shorterKeyEndingAt[ending];
      }
    }
    return spans ? replaceSpans(text, spans, placeholder) : text;
  }
}

/** The text with each stretch, overlapping ones merged, replaced. */
function replaceSpans(
  text: string,
  spans: number[],
  placeholder: string,
): string {
  const order = Array.from({ length: spans.length / 2 }, (_, i) => i).sort(
    (a, b) => spans[2 * a] - spans[2 * b],
  );
  const parts: string[] = [];
  let copiedTo = 0;
  let index = 0;
  while (index < order.length) {
    const start = spans[2 * order[index]];
    let end = spans[2 * order[index] + 1];
    index++;
    while (index < order.length && spans[2 * order[index]] < end) {
      end = Math.max(end, spans[2 * order[index] + 1]);
      index++;
    }
    parts.push(text.slice(copiedTo, start), placeholder);
    copiedTo = end;
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}
