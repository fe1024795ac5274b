/** The longest entity name Backstage accepts. */
const MAX_NAME_LENGTH = 63;

/**
 * A Gatus name or group as an entity name: lower case, runs of anything but
 * letters and digits as one `-`, at most 63 characters (`Other example` is
 * `other-example`). `fallback` when nothing is left.
 */
export function toEntityName(text: string, fallback: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug || fallback;
}

/**
 * Entity names for endpoints, unique among them: the endpoint's own name,
 * its group's before it where two endpoints share a name (`core-website`,
 * `internal-website`), and a number after where that is not enough.
 */
export function uniqueEntityNames(
  endpoints: ReadonlyArray<{ name: string; group?: string }>,
): string[] {
  const plain = endpoints.map(e => toEntityName(e.name, 'endpoint'));
  const count = new Map<string, number>();
  for (const name of plain) {
    count.set(name, (count.get(name) ?? 0) + 1);
  }
  const taken = new Set<string>();
  return endpoints.map((endpoint, index) => {
    let name = plain[index];
    if (count.get(name)! > 1 && endpoint.group) {
      name = toEntityName(`${endpoint.group}-${endpoint.name}`, name);
    }
    let unique = name;
    for (let n = 2; taken.has(unique); n++) {
      const suffix = `-${n}`;
      unique = `${name.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(unique);
    return unique;
  });
}
