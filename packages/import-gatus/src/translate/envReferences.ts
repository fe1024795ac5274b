/**
 * Gatus expands `${NAME}` and `$NAME` from its environment anywhere in its
 * configuration (`$$` is a literal `$`). Vigil keeps secrets in the app
 * config instead, referenced as `${secret:NAME}` where a probe sends them.
 */
const ENV_REFERENCE =
  /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The environment variables a text reads, each once, in order. */
export function findEnvReferences(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(ENV_REFERENCE)) {
    const name = match[1] ?? match[2];
    if (name) {
      names.add(name);
    }
  }
  return [...names];
}

/**
 * The text with each environment variable as a secret reference
 * (`Bearer ${TOKEN}` becomes `Bearer ${secret:TOKEN}`) and `$$` as `$`, and
 * the names it references.
 */
export function envToSecretReferences(text: string): {
  text: string;
  secrets: string[];
} {
  const secrets = new Set<string>();
  const translated = text.replace(
    ENV_REFERENCE,
    (_whole, braced?: string, bare?: string) => {
      const name = braced ?? bare;
      if (!name) {
        return '$';
      }
      secrets.add(name);
      return `\${secret:${name}}`;
    },
  );
  return { text: translated, secrets: [...secrets] };
}
