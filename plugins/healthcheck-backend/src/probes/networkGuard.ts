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
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '@backstage/config';
import ipaddr from 'ipaddr.js';
import {
  type AddressResolver,
  defaultAddressResolver,
} from './CaresAddressResolver';

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
  {
    // Public address space, reachable from every Azure VM: it hands out the
    // VM's configuration and certificates to the guest agent.
    address: '168.63.129.16',
    service: 'Azure WireServer (guest agent, health probes and DNS)',
  },
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

/**
 * Where RFC 6052 puts the IPv4 address (bytes 0-15; byte 8 is never used),
 * for the prefix lengths that fit in or equal a /48 and /96.
 */
const RFC6052_IPV4_BYTES: Record<number, number[]> = {
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
};

function bytesAt(positions: number[]): (bytes: number[]) => number[] {
  return bytes => positions.map(index => bytes[index]);
}

/** One place an IPv6 address of an embedding may carry an IPv4 address. */
interface CarriedPosition {
  /** Names the place when there are several: `client`, `/64`. */
  label?: string;
  extract: (bytes: number[]) => number[];
}

// IPv6 prefixes whose addresses carry an IPv4 address that traffic ends up
// at: each is judged by the IPv4 address (or addresses) it carries.
const EMBEDDING_PREFIXES: Array<{
  range: [ipaddr.IPv6, number];
  name: string;
  positions: CarriedPosition[];
  /** The prefix is not public itself: judge its range rule too. */
  judgePrefix?: boolean;
  /** Skip places that hold 0.0.0.0/8 (see local-use NAT64). */
  skipThisNetwork?: boolean;
}> = [
  {
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'),
    name: 'IPv4-mapped',
    positions: [{ extract: bytesAt(RFC6052_IPV4_BYTES[96]) }],
  },
  {
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'),
    name: 'IPv4-translated',
    positions: [{ extract: bytesAt(RFC6052_IPV4_BYTES[96]) }],
  },
  {
    range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'),
    name: 'NAT64',
    positions: [{ extract: bytesAt(RFC6052_IPV4_BYTES[96]) }],
  },
  {
    // RFC 8215: the operator picks the translator's prefix inside the /48,
    // of any RFC 6052 length from /48 to /96, and the guard cannot know
    // which: every place the IPv4 address could be is judged, and one
    // refusal refuses the address. A place holding 0.0.0.0/8 is skipped:
    // it is what the zero bytes of an ordinary prefix put there (an address
    // under 64:ff9b:1::/96 carries 0.0.0.0 at /48 and /56, 0.0.0.x at /64),
    // and "this network" is no destination (RFC 1122 3.2.1.3; RFC 6890 marks
    // it not forwardable), so a translator has no other host to hand it to.
    // Refusing it would refuse every ordinary address of the range.
    range: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    name: 'local-use NAT64',
    positions: [48, 56, 64, 96].map(length => ({
      label: `/${length}`,
      extract: bytesAt(RFC6052_IPV4_BYTES[length]),
    })),
    judgePrefix: true,
    skipThisNetwork: true,
  },
  {
    // RFC 4380: 2001:0:<server>:<flags>:<port ^ 0xffff>:<client ^ 0xffffffff>.
    // A relay sends the traffic to the client's (public, NAT) address, and
    // talks to the server; both are judged.
    range: ipaddr.IPv6.parseCIDR('2001::/32'),
    name: 'Teredo',
    positions: [
      { label: 'server', extract: bytesAt([4, 5, 6, 7]) },
      {
        label: 'client',
        extract: bytes => [12, 13, 14, 15].map(index => bytes[index] ^ 0xff),
      },
    ],
  },
  {
    range: ipaddr.IPv6.parseCIDR('2002::/16'),
    name: '6to4',
    positions: [{ extract: bytesAt([2, 3, 4, 5]) }],
  },
  {
    // IPv4-compatible (deprecated); `::` and `::1` are judged as themselves.
    range: ipaddr.IPv6.parseCIDR('::/96'),
    name: 'IPv4-compatible',
    positions: [{ extract: bytesAt(RFC6052_IPV4_BYTES[96]) }],
  },
];

const THIS_NETWORK = ipaddr.IPv4.parseCIDR('0.0.0.0/8');

/**
 * The IPv4 addresses an IPv6 address carries, if traffic to it ends up at
 * an IPv4 host, with the name of the embedding.
 */
function embeddedIPv4(address: ipaddr.IPv6):
  | {
      via: string;
      carried: Array<{ ipv4: ipaddr.IPv4; label?: string }>;
      judgePrefix: boolean;
    }
  | undefined {
  const value = address.toNormalizedString();
  if (value === '0:0:0:0:0:0:0:0' || value === '0:0:0:0:0:0:0:1') {
    return undefined;
  }
  const prefix = EMBEDDING_PREFIXES.find(entry => address.match(entry.range));
  if (!prefix) {
    return undefined;
  }
  const bytes = address.toByteArray();
  const carried = prefix.positions.map(position => ({
    ipv4: new ipaddr.IPv4(position.extract(bytes)),
    label: position.label,
  }));
  return {
    via: prefix.name,
    carried: prefix.skipThisNetwork
      ? carried.filter(({ ipv4 }) => !ipv4.match(THIS_NETWORK))
      : carried,
    judgePrefix: prefix.judgePrefix ?? false,
  };
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
 * The verdict on one parsed address by the metadata list and the range
 * rules; `subject` starts the reason (`10.0.0.1 ` or `... which `).
 */
function judgeParsed(
  judged: ipaddr.IPv4 | ipaddr.IPv6,
  subject: string,
  policy: NetworkPolicy,
): AddressDecision {
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
 * Of several verdicts on one address, the one to give: a refusal no setting
 * lifts before one a setting lifts, and either before an allowance.
 */
function strictest(decisions: AddressDecision[]): AddressDecision {
  const refusals = decisions.filter(
    (decision): decision is Extract<AddressDecision, { allowed: false }> =>
      !decision.allowed,
  );
  return (
    refusals.find(refusal => refusal.setting === null) ??
    refusals[0] ?? { allowed: true }
  );
}

/**
 * Whether a probe may connect to an IP address under a policy. Pure: the
 * same answer for the same input, no DNS.
 *
 * Cloud metadata addresses, link-local, unspecified, broadcast and multicast
 * are refused always; loopback unless `allowLoopback`; private and other
 * non-public unicast ranges unless `allowPrivate`. An IPv6 address that
 * carries an IPv4 address (mapped, translated, NAT64, 6to4, compatible) is
 * judged by the IPv4 address; one that may carry several (local-use NAT64 at
 * each RFC 6052 position, Teredo's server and client) is refused when any of
 * them is. Anything that is not a plain IP address, such as a hostname or
 * `0177.0.0.1`, is refused: resolve it first.
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
  const embedded =
    parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
  if (!embedded) {
    return judgeParsed(parsed, `${address} `, policy);
  }
  const verdicts = embedded.carried.map(({ ipv4, label }) =>
    judgeParsed(
      ipv4,
      `${address} is ${embedded.via} and carries ${ipv4}${
        label ? ` (${label})` : ''
      }, which `,
      policy,
    ),
  );
  if (embedded.judgePrefix) {
    verdicts.unshift(judgeParsed(parsed, `${address} `, policy));
  }
  return strictest(verdicts);
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
 * Options of {@link createGuardedLookup}.
 * @public
 */
export interface GuardedLookupOptions {
  policy: NetworkPolicy;
  /**
   * How names become addresses; by default c-ares with the system's hosts
   * file and search list, off libuv's thread pool (see CaresAddressResolver).
   */
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
  const resolve = options.resolve ?? defaultAddressResolver();
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
