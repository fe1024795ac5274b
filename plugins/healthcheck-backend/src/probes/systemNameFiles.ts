/**
 * What the operating system's resolver reads besides DNS, as plain data:
 * the hosts file, the search list of resolv.conf, and the names RFC 6761
 * reserves for loopback. c-ares, which the probes resolve with, queries DNS
 * and nothing else, so these are applied here. Pure: no I/O.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/** glibc's limits: six search domains, ndots at most 15 (default 1). */
const MAX_SEARCH_DOMAINS = 6;
const MAX_NDOTS = 15;
const DEFAULT_NDOTS = 1;

/**
 * The parts of resolv.conf that decide which names are asked.
 * @internal
 */
export interface SearchSettings {
  /** Domains tried after (or before) the name itself. */
  readonly search: readonly string[];
  /** A name with at least this many dots is asked as it is first. */
  readonly ndots: number;
}

/** @internal */
export const NO_SEARCH: SearchSettings = Object.freeze({
  search: [],
  ndots: DEFAULT_NDOTS,
});

/** A name as compared: lower case, without the root's trailing dot. */
function comparable(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * The addresses of each name in a hosts file (`/etc/hosts` format),
 * keyed by the name in lower case, in file order.
 * @internal
 */
export function parseHostsFile(text: string): Map<string, LookupAddress[]> {
  const hosts = new Map<string, LookupAddress[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = address ? isIP(address) : 0;
    if (family === 0) {
      continue;
    }
    for (const name of names) {
      const key = comparable(name);
      const entries = hosts.get(key) ?? [];
      if (!entries.some(entry => entry.address === address)) {
        entries.push({ address, family });
      }
      hosts.set(key, entries);
    }
  }
  return hosts;
}

/**
 * The search list and `ndots` of a resolv.conf, as glibc reads them: the
 * last `search` or `domain` line wins.
 * @internal
 */
export function parseResolvConf(text: string): SearchSettings {
  let search: string[] = [];
  let ndots = DEFAULT_NDOTS;
  for (const line of text.split('\n')) {
    const [keyword, ...values] = line
      .replace(/[#;].*/, '')
      .trim()
      .split(/\s+/);
    if (keyword === 'search' || keyword === 'domain') {
      search = values
        .map(comparable)
        .filter(domain => domain.length > 0)
        .slice(0, keyword === 'domain' ? 1 : MAX_SEARCH_DOMAINS);
    } else if (keyword === 'options') {
      for (const option of values) {
        const match = /^ndots:(\d+)$/.exec(option);
        if (match) {
          ndots = Math.min(Number(match[1]), MAX_NDOTS);
        }
      }
    }
  }
  return { search, ndots };
}

/**
 * The names to ask DNS for, in order, as `res_search` tries them: a name
 * ending in a dot is asked as it is; one with at least `ndots` dots as it
 * is and then with each search domain; a shorter one with each search domain
 * first (`payments` in Kubernetes is `payments.<namespace>.svc.cluster.local`).
 * @internal
 */
export function searchCandidates(
  hostname: string,
  settings: SearchSettings,
): string[] {
  if (hostname.endsWith('.')) {
    return [hostname.slice(0, -1)];
  }
  const withDomains = settings.search.map(domain => `${hostname}.${domain}`);
  const dots = hostname.split('.').length - 1;
  return dots >= settings.ndots
    ? [hostname, ...withDomains]
    : [...withDomains, hostname];
}

/**
 * Whether a name is `localhost` or under it, which RFC 6761 (6.3) reserves
 * for loopback: it is answered with loopback and never asked of DNS, where a
 * hostile server could answer anything.
 * @internal
 */
export function isLocalhostName(hostname: string): boolean {
  const name = comparable(hostname);
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The loopback addresses of a localhost name for a family (0: both, IPv4
 * first).
 * @internal
 */
export function loopbackAddresses(family: number): LookupAddress[] {
  const both: LookupAddress[] = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
  return both.filter(entry => family === 0 || entry.family === family);
}

/**
 * The hosts file's addresses of a name for a family (0: any), or none.
 * @internal
 */
export function hostsFileAddresses(
  hosts: ReadonlyMap<string, readonly LookupAddress[]>,
  hostname: string,
  family: number,
): LookupAddress[] {
  return (hosts.get(comparable(hostname)) ?? []).filter(
    entry => family === 0 || entry.family === family,
  );
}
