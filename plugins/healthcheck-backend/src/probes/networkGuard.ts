/**
 * The network guard: which addresses a probe may connect to. Probes run
 * inside the backend's network, so without a guard any check author could
 * read a cloud metadata service or scan internal hosts through them.
 *
 * The guard judges addresses, never names: hostnames go through
 * {@link createGuardedLookup}, which hands the socket only addresses the
 * policy allows, so the address judged is the address connected to and a
 * rebinding DNS server cannot slip a second answer past it.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '@backstage/config';
import ipaddr from 'ipaddr.js';

/**
 * Which non-public ranges probes may reach. Both default to `false`.
 * @public
 */
export interface NetworkPolicy {
  /** `healthcheck.network.allowLoopback`: 127.0.0.0/8 and ::1. */
  allowLoopback: boolean;
  /** `healthcheck.network.allowPrivate`: RFC 1918, CGNAT, unique local and other non-public unicast ranges. */
  allowPrivate: boolean;
}

/**
 * The configuration key that would allow a refused address, or `null` when
 * nothing may allow it.
 * @public
 */
export type NetworkPolicySetting =
  | 'healthcheck.network.allowLoopback'
  | 'healthcheck.network.allowPrivate';

/**
 * The guard's verdict on one address.
 * @public
 */
export type AddressDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** Why, naming the range: `127.0.0.1 is loopback (127.0.0.0/8)`. */
      reason: string;
      setting: NetworkPolicySetting | null;
    };

const ALLOW_LOOPBACK: NetworkPolicySetting =
  'healthcheck.network.allowLoopback';
const ALLOW_PRIVATE: NetworkPolicySetting = 'healthcheck.network.allowPrivate';

/**
 * Instance metadata and credential endpoints of cloud platforms. Refused
 * whatever the policy says, even those outside link-local space (Alibaba's
 * sits in CGNAT space, which `allowPrivate` would otherwise open).
 * @public
 */
export const CLOUD_METADATA_ADDRESSES: ReadonlyArray<{
  address: string;
  service: string;
}> = [
  {
    address: '169.254.169.254',
    service:
      'instance metadata (AWS, GCP, Azure, OCI, OpenStack, DigitalOcean)',
  },
  { address: '169.254.170.2', service: 'AWS ECS task metadata' },
  { address: '169.254.170.23', service: 'AWS EKS Pod Identity' },
  { address: 'fd00:ec2::254', service: 'AWS instance metadata (IPv6)' },
  { address: 'fd00:ec2::23', service: 'AWS EKS Pod Identity (IPv6)' },
  { address: 'fd20:ce::254', service: 'GCP instance metadata (IPv6)' },
  { address: '100.100.100.200', service: 'Alibaba Cloud instance metadata' },
  { address: '192.0.0.192', service: 'Oracle Cloud Classic instance metadata' },
];

type RangeRule = {
  cidr: string;
  name: string;
  /** `undefined`: refused always. */
  setting: NetworkPolicySetting | undefined;
};

// Order matters only for overlaps: the first matching rule names the range.
const RANGE_RULES: RangeRule[] = [
  { cidr: '0.0.0.0/8', name: 'unspecified', setting: undefined },
  { cidr: '169.254.0.0/16', name: 'link-local', setting: undefined },
  { cidr: '224.0.0.0/4', name: 'multicast', setting: undefined },
  { cidr: '255.255.255.255/32', name: 'broadcast', setting: undefined },
  { cidr: '127.0.0.0/8', name: 'loopback', setting: ALLOW_LOOPBACK },
  { cidr: '10.0.0.0/8', name: 'private', setting: ALLOW_PRIVATE },
  { cidr: '172.16.0.0/12', name: 'private', setting: ALLOW_PRIVATE },
  { cidr: '192.168.0.0/16', name: 'private', setting: ALLOW_PRIVATE },
  { cidr: '100.64.0.0/10', name: 'carrier-grade NAT', setting: ALLOW_PRIVATE },
  {
    cidr: '192.0.0.0/24',
    name: 'IETF protocol assignments',
    setting: ALLOW_PRIVATE,
  },
  { cidr: '192.0.2.0/24', name: 'documentation', setting: ALLOW_PRIVATE },
  { cidr: '198.51.100.0/24', name: 'documentation', setting: ALLOW_PRIVATE },
  { cidr: '203.0.113.0/24', name: 'documentation', setting: ALLOW_PRIVATE },
  { cidr: '198.18.0.0/15', name: 'benchmarking', setting: ALLOW_PRIVATE },
  { cidr: '240.0.0.0/4', name: 'reserved', setting: ALLOW_PRIVATE },
  { cidr: '::/128', name: 'unspecified', setting: undefined },
  { cidr: 'fe80::/10', name: 'link-local', setting: undefined },
  { cidr: 'ff00::/8', name: 'multicast', setting: undefined },
  { cidr: '::1/128', name: 'loopback', setting: ALLOW_LOOPBACK },
  { cidr: 'fc00::/7', name: 'unique local', setting: ALLOW_PRIVATE },
  { cidr: 'fec0::/10', name: 'site-local', setting: ALLOW_PRIVATE },
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64', setting: ALLOW_PRIVATE },
  { cidr: '100::/64', name: 'discard-only', setting: ALLOW_PRIVATE },
  { cidr: '2001:db8::/32', name: 'documentation', setting: ALLOW_PRIVATE },
  { cidr: '2001:2::/48', name: 'benchmarking', setting: ALLOW_PRIVATE },
];

type ParsedRule = RangeRule & { range: [ipaddr.IPv4 | ipaddr.IPv6, number] };

const PARSED_RULES: ParsedRule[] = RANGE_RULES.map(rule => ({
  ...rule,
  range: ipaddr.parseCIDR(rule.cidr),
}));

const METADATA_BY_ADDRESS = new Map(
  CLOUD_METADATA_ADDRESSES.map(entry => [
    ipaddr.parse(entry.address).toNormalizedString(),
    entry.service,
  ]),
);

// IPv6 prefixes whose addresses carry an IPv4 address that traffic ends up
// at: each is judged by the IPv4 address it carries.
const EMBEDDING_PREFIXES: Array<{
  range: [ipaddr.IPv6, number];
  name: string;
  extract: (parts: number[]) => number[];
}> = [
  {
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'),
    name: 'IPv4-mapped',
    extract: lastFourBytes,
  },
  {
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'),
    name: 'IPv4-translated',
    extract: lastFourBytes,
  },
  {
    range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'),
    name: 'NAT64',
    extract: lastFourBytes,
  },
  {
    range: ipaddr.IPv6.parseCIDR('2002::/16'),
    name: '6to4',
    extract: parts => [
      parts[1] >> 8,
      parts[1] & 0xff,
      parts[2] >> 8,
      parts[2] & 0xff,
    ],
  },
  {
    // IPv4-compatible (deprecated); `::` and `::1` are judged as themselves.
    range: ipaddr.IPv6.parseCIDR('::/96'),
    name: 'IPv4-compatible',
    extract: lastFourBytes,
  },
];

function lastFourBytes(parts: number[]): number[] {
  return [parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff];
}

/**
 * The IPv4 address an IPv6 address carries, if traffic to it ends up at an
 * IPv4 host, with the name of the embedding.
 */
function embeddedIPv4(
  address: ipaddr.IPv6,
): { ipv4: ipaddr.IPv4; via: string } | undefined {
  const value = address.toNormalizedString();
  if (value === '0:0:0:0:0:0:0:0' || value === '0:0:0:0:0:0:0:1') {
    return undefined;
  }
  for (const prefix of EMBEDDING_PREFIXES) {
    if (address.match(prefix.range)) {
      return {
        ipv4: new ipaddr.IPv4(prefix.extract(address.parts)),
        via: prefix.name,
      };
    }
  }
  return undefined;
}

/**
 * Parses an address `net.isIP` accepts. IPv6 goes through the WHATWG URL
 * serializer first, which writes a dotted IPv4 tail in hex: ipaddr.js reads
 * `::127.0.0.1` as `::ffff:127.0.0.1`, a different address. The zone of a
 * scoped address does not change its range, so it is dropped.
 */
function parseIpAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (isIP(address) === 4) {
    return ipaddr.IPv4.parse(address);
  }
  const unscoped = address.replace(/%.*$/, '');
  const canonical = new URL(`http://[${unscoped}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.parse(canonical);
}

/**
 * Whether a probe may connect to an IP address under a policy. Pure: the
 * same answer for the same input, no DNS.
 *
 * Cloud metadata addresses, link-local, unspecified, broadcast and multicast
 * are refused always; loopback unless `allowLoopback`; private and other
 * non-public unicast ranges unless `allowPrivate`. An IPv6 address that
 * carries an IPv4 address (mapped, translated, NAT64, 6to4, compatible) is
 * judged by the IPv4 address. Anything that is not a plain IP address, such
 * as a hostname or `0177.0.0.1`, is refused: resolve it first.
 *
 * @public
 */
export function checkAddress(
  address: string,
  policy: NetworkPolicy,
): AddressDecision {
  if (isIP(address) === 0) {
    return {
      allowed: false,
      reason: `'${address}' is not an IP address`,
      setting: null,
    };
  }
  const parsed = parseIpAddress(address);
  let judged: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  let prefix = '';
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded) {
      judged = embedded.ipv4;
      prefix = `${address} is ${embedded.via} and carries ${embedded.ipv4}, which `;
    }
  }
  const subject = prefix || `${address} `;

  const metadataService = METADATA_BY_ADDRESS.get(judged.toNormalizedString());
  if (metadataService) {
    return {
      allowed: false,
      reason: `${subject}is a cloud metadata address (${metadataService})`,
      setting: null,
    };
  }
  for (const rule of PARSED_RULES) {
    if (judged.kind() !== rule.range[0].kind() || !judged.match(rule.range)) {
      continue;
    }
    const reason = `${subject}is ${rule.name} (${rule.cidr})`;
    if (rule.setting === undefined) {
      return { allowed: false, reason, setting: null };
    }
    const allowedByPolicy =
      rule.setting === ALLOW_LOOPBACK
        ? policy.allowLoopback
        : policy.allowPrivate;
    return allowedByPolicy
      ? { allowed: true }
      : { allowed: false, reason, setting: rule.setting };
  }
  return { allowed: true };
}

/**
 * The sentence a refused probe reports: the address, the hostname it came
 * from, why, and the setting that would allow it.
 * @public
 */
export function describeRefusal(
  refusal: Extract<AddressDecision, { allowed: false }>,
  hostname?: string,
): string {
  const from = hostname
    ? `${hostname} resolved to an address the guard refuses: `
    : '';
  const remedy = refusal.setting
    ? `set ${refusal.setting}: true to allow it`
    : 'no setting allows it';
  return `Network guard: ${from}${refusal.reason}; ${remedy}`;
}

/**
 * A connection the network guard refused. Probes report it with error kind
 * `guard`.
 * @public
 */
export class NetworkGuardError extends Error {
  readonly code = 'EVIGIL_GUARD';
  readonly address: string;
  readonly setting: NetworkPolicySetting | null;

  constructor(
    address: string,
    refusal: Extract<AddressDecision, { allowed: false }>,
    hostname?: string,
  ) {
    super(describeRefusal(refusal, hostname));
    this.name = 'NetworkGuardError';
    this.address = address;
    this.setting = refusal.setting;
  }
}

/**
 * Throws {@link NetworkGuardError} when a host given as an IP literal is
 * refused; does nothing for hostnames, which the guarded lookup judges once
 * resolved. Sockets skip `lookup` for IP literals, so every connect needs
 * both.
 * @public
 */
export function assertLiteralAddressAllowed(
  host: string,
  policy: NetworkPolicy,
): void {
  const bare =
    host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) === 0) {
    return;
  }
  const decision = checkAddress(bare, policy);
  if (!decision.allowed) {
    throw new NetworkGuardError(bare, decision);
  }
}

/**
 * The resolver behind the guard, with the signature of `dns.lookup` called
 * with `all: true`.
 * @public
 */
export type AddressResolver = (
  hostname: string,
  options: { family?: number; hints?: number; all: true },
  callback: (
    err: NodeJS.ErrnoException | null,
    addresses: LookupAddress[],
  ) => void,
) => void;

const systemResolver: AddressResolver = (hostname, options, callback) =>
  dnsLookup(hostname, options, callback);

/**
 * Options of {@link createGuardedLookup}.
 * @public
 */
export interface GuardedLookupOptions {
  policy: NetworkPolicy;
  /** How names become addresses; the operating system's resolver by default. */
  resolve?: AddressResolver;
  /** Told of each lookup, to time the DNS phase of a probe. */
  onLookup?: (event: {
    hostname: string;
    durationMs: number;
    addresses: string[];
  }) => void;
}

/**
 * A `lookup` for `net.connect`, `tls.connect` and undici's `connect` option
 * that resolves the name and passes on only the addresses the policy allows,
 * so the socket connects to an address the guard has judged. When none is
 * allowed the connect fails with {@link NetworkGuardError}.
 *
 * @public
 */
export function createGuardedLookup(
  options: GuardedLookupOptions,
): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  const guardedLookup = (
    hostname: string,
    lookupOptions: { family?: number; hints?: number; all?: boolean },
    callback: (...args: any[]) => void,
  ) => {
    const started = performance.now();
    resolve(
      hostname,
      { family: lookupOptions.family, hints: lookupOptions.hints, all: true },
      (err, addresses) => {
        options.onLookup?.({
          hostname,
          durationMs: performance.now() - started,
          addresses: err ? [] : addresses.map(entry => entry.address),
        });
        if (err) {
          callback(err);
          return;
        }
        const allowed: LookupAddress[] = [];
        let firstRefused: NetworkGuardError | undefined;
        for (const entry of addresses) {
          const decision = checkAddress(entry.address, options.policy);
          if (decision.allowed) {
            allowed.push(entry);
          } else {
            firstRefused ??= new NetworkGuardError(
              entry.address,
              decision,
              hostname,
            );
          }
        }
        if (allowed.length === 0) {
          callback(
            firstRefused ??
              Object.assign(new Error(`${hostname} has no addresses`), {
                code: 'ENOTFOUND',
              }),
          );
        } else if (lookupOptions.all) {
          callback(null, allowed);
        } else {
          callback(null, allowed[0].address, allowed[0].family);
        }
      },
    );
  };
  return guardedLookup as LookupFunction;
}

/**
 * The network policy from `healthcheck.network`; both ranges closed unless
 * configured open.
 * @public
 */
export function readNetworkPolicy(config: Config): NetworkPolicy {
  return {
    allowLoopback:
      config.getOptionalBoolean('healthcheck.network.allowLoopback') ?? false,
    allowPrivate:
      config.getOptionalBoolean('healthcheck.network.allowPrivate') ?? false,
  };
}
