/**
 * How probes turn names into addresses: through c-ares (`dns.Resolver`),
 * never `dns.lookup`. `dns.lookup` calls getaddrinfo on libuv's thread pool
 * (four threads, of which libuv lets slow work such as getaddrinfo hold two),
 * so a few names whose servers never answer queue every other lookup of the
 * process behind them for minutes and halve the pool for file, crypto and
 * zlib work. c-ares runs on the event loop's own sockets: a lookup that
 * hangs holds a slot of this resolver until its timeout, and nothing else.
 *
 * c-ares asks DNS and nothing else, so what getaddrinfo would read first is
 * read here: `localhost` and `*.localhost` are loopback (RFC 6761), never
 * asked; the hosts file is read at the first lookup and again in the
 * background once it is older than a refresh interval, and answers before
 * DNS (as `hosts: files dns` in nsswitch.conf); the search list and `ndots`
 * of resolv.conf decide which names are asked, as `res_search` does, so
 * short Kubernetes names resolve. Not read: nsswitch.conf itself (files,
 * then DNS, is assumed), mDNS, and the LOCALDOMAIN and RES_OPTIONS variables.
 */
import { readConfigDuration } from '@vigil/plugin-healthcheck-node';
import { type LookupAddress, Resolver } from 'node:dns';
import { open } from 'node:fs/promises';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { ConcurrencyGate, type ConcurrencyGateStats } from './ConcurrencyGate';
import {
  hostsFileAddresses,
  isLocalhostName,
  loopbackAddresses,
  NO_SEARCH,
  parseHostsFile,
  parseResolvConf,
  searchCandidates,
  type SearchSettings,
} from './systemNameFiles';

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

/**
 * How long a lookup may take and how many run at once.
 * @internal
 */
export interface NameResolutionSettings {
  /** One lookup, waiting for a slot included, in milliseconds. */
  readonly timeoutMs: number;
  /** Lookups asking DNS at once. */
  readonly maxInFlight: number;
  /** Lookups waiting for a slot; beyond them a lookup fails at once. */
  readonly maxQueued: number;
}

/**
 * The defaults of `healthcheck.network.dns`.
 * @internal
 */
export const DEFAULT_NAME_RESOLUTION: NameResolutionSettings = Object.freeze({
  timeoutMs: 5_000,
  maxInFlight: 128,
  maxQueued: 1_024,
});

/** How old the hosts file and resolv.conf may be before they are read again. */
const SYSTEM_FILES_MAX_AGE_MS = 30_000;
/** More of either file than this is not read. */
const MAX_SYSTEM_FILE_BYTES = 1024 * 1024;
/** A lookup whose slot comes with less time left than this fails instead. */
const MIN_LOOKUP_MS = 10;
/** c-ares gives each server this long per try; the lookup's deadline rules. */
const MAX_TRY_TIMEOUT_MS = 2_000;

/** Answers that end the search of one name: try the next candidate. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Counters of a {@link CaresAddressResolver}: lookups asking DNS now and at
 * most, waiting, and turned away.
 * @internal
 */
export type CaresAddressResolverStats = ConcurrencyGateStats;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  addresses: LookupAddress[],
) => void;

function lookupError(
  code: string,
  hostname: string,
  message: string,
): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, hostname });
}

/** Reads up to `MAX_SYSTEM_FILE_BYTES` of a file; a missing file is empty. */
async function readSystemFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return '';
    }
    throw error;
  }
  try {
    const buffer = Buffer.alloc(MAX_SYSTEM_FILE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

interface SystemFiles {
  hosts: Map<string, LookupAddress[]>;
  search: SearchSettings;
  readAt: number;
}

/**
 * The resolver the probes use by default: c-ares behind a timeout and a
 * bound on lookups in flight, with loopback names, the hosts file and the
 * search list applied as the system resolver would. Its `resolve` has the
 * signature of `dns.lookup` with `all: true`, as the network guard expects.
 *
 * @internal
 */
export class CaresAddressResolver {
  readonly #settings: NameResolutionSettings;
  readonly #servers: string[] | undefined;
  readonly #hostsPath: string | null;
  readonly #resolvConfPath: string | null;
  readonly #filesMaxAgeMs: number;
  readonly #now: () => number;
  readonly #gate: ConcurrencyGate;
  #files: SystemFiles | undefined;
  #reading: Promise<void> | undefined;

  /** With `healthcheck.network.dns`, and the system's servers and files. */
  static fromConfig(config: Config): CaresAddressResolver {
    return new CaresAddressResolver(readNameResolutionSettings(config));
  }

  constructor(
    options: Partial<NameResolutionSettings> & {
      /** `address:port` of the servers to ask; the system's by default. */
      servers?: string[];
      /** `null` reads none; `/etc/hosts` by default. */
      hostsFile?: string | null;
      /** `null` reads none; `/etc/resolv.conf` by default. */
      resolvConf?: string | null;
      /** How old the files may be before they are read again. */
      filesMaxAgeMs?: number;
      clock?: { now(): number };
    } = {},
  ) {
    this.#settings = {
      timeoutMs: options.timeoutMs ?? DEFAULT_NAME_RESOLUTION.timeoutMs,
      maxInFlight: options.maxInFlight ?? DEFAULT_NAME_RESOLUTION.maxInFlight,
      maxQueued: options.maxQueued ?? DEFAULT_NAME_RESOLUTION.maxQueued,
    };
    this.#servers = options.servers;
    this.#hostsPath =
      options.hostsFile === undefined ? '/etc/hosts' : options.hostsFile;
    this.#resolvConfPath =
      options.resolvConf === undefined
        ? '/etc/resolv.conf'
        : options.resolvConf;
    this.#filesMaxAgeMs = options.filesMaxAgeMs ?? SYSTEM_FILES_MAX_AGE_MS;
    const clock = options.clock ?? Date;
    this.#now = () => clock.now();
    this.#gate = new ConcurrencyGate({
      maxActive: this.#settings.maxInFlight,
      maxQueued: this.#settings.maxQueued,
    });
  }

  stats(): CaresAddressResolverStats {
    return this.#gate.stats();
  }

  readonly resolve: AddressResolver = (hostname, options, callback) => {
    const family = options.family ?? 0;
    // Answers known at once still come asynchronously, as from dns.lookup:
    // a socket attaches its listeners after calling lookup.
    const answer = (
      error: NodeJS.ErrnoException | null,
      addresses: LookupAddress[],
    ) => process.nextTick(callback, error, addresses);
    const literalFamily = isIP(hostname);
    if (literalFamily !== 0) {
      if (family === 0 || family === literalFamily) {
        answer(null, [{ address: hostname, family: literalFamily }]);
      } else {
        answer(
          lookupError(
            'ENOTFOUND',
            hostname,
            `${hostname} is not an IPv${family} address`,
          ),
          [],
        );
      }
      return;
    }
    if (isLocalhostName(hostname)) {
      answer(null, loopbackAddresses(family));
      return;
    }
    // The hosts file answers without a slot: only DNS can hang. (Reading
    // the files never fails; a file that cannot be read keeps its content.)
    this.#systemFiles().then(files => {
      const fromHosts = hostsFileAddresses(files.hosts, hostname, family);
      if (fromHosts.length > 0) {
        callback(null, fromHosts);
      } else {
        this.#lookUp(hostname, family, files.search, callback);
      }
    });
  };

  /** Through the gate, within the deadline, which counts the wait for a slot. */
  #lookUp(
    hostname: string,
    family: number,
    search: SearchSettings,
    callback: LookupCallback,
  ): void {
    const { timeoutMs, maxInFlight, maxQueued } = this.#settings;
    let settled = false;
    let started = false;
    let resolver: Resolver | undefined;
    // Set once the lookup is admitted, which is before it can finish.
    const timer: { deadline?: NodeJS.Timeout } = {};
    const finish = (
      error: NodeJS.ErrnoException | null,
      addresses: LookupAddress[],
    ) => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer.deadline);
      if (started) {
        resolver?.cancel();
        this.#gate.release();
      }
      callback(error, addresses);
    };

    const timedOutWaiting = () =>
      lookupError(
        'ETIMEOUT',
        hostname,
        `Looking up ${hostname} timed out after ${timeoutMs} ms, waiting behind ${maxInFlight} lookups in flight`,
      );
    const deadlineAt = performance.now() + timeoutMs;
    let entering = true;
    const entry = this.#gate.enter(() => {
      started = true;
      // A slot freed for a waiter as its deadline falls: not worth a query.
      if (!entering && deadlineAt - performance.now() < MIN_LOOKUP_MS) {
        finish(timedOutWaiting(), []);
        return;
      }
      resolver = this.#newResolver();
      this.#askDns(hostname, family, search, resolver).then(
        addresses => finish(null, addresses),
        error => finish(error, []),
      );
    });
    entering = false;
    if (!entry.admitted) {
      callback(
        lookupError(
          'EVIGIL_DNS_BUSY',
          hostname,
          `${hostname} was not looked up: ${maxInFlight} lookups are in flight and ${maxQueued} waiting, the most healthcheck.network.dns allows`,
        ),
        [],
      );
      return;
    }
    timer.deadline = setTimeout(() => {
      const waited = !started && entry.withdraw();
      finish(
        waited
          ? timedOutWaiting()
          : lookupError(
              'ETIMEOUT',
              hostname,
              `Looking up ${hostname} timed out after ${timeoutMs} ms`,
            ),
        [],
      );
    }, timeoutMs);
  }

  #newResolver(): Resolver {
    const resolver = new Resolver({
      timeout: Math.min(this.#settings.timeoutMs, MAX_TRY_TIMEOUT_MS),
      tries: 2,
    });
    if (this.#servers) {
      resolver.setServers(this.#servers);
    }
    return resolver;
  }

  /** Each candidate of the search list in turn, until one has addresses. */
  async #askDns(
    hostname: string,
    family: number,
    search: SearchSettings,
    resolver: Resolver,
  ): Promise<LookupAddress[]> {
    let notFound: NodeJS.ErrnoException | undefined;
    for (const name of searchCandidates(hostname, search)) {
      try {
        return await queryAddresses(resolver, name, family);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (!NO_SUCH_NAME.has(code)) {
          throw lookupError(
            code,
            hostname,
            `Looking up ${hostname} failed: ${(error as Error).message}`,
          );
        }
        // NODATA anywhere says the name exists, which NXDOMAIN would hide.
        notFound =
          notFound?.code === 'ENODATA'
            ? notFound
            : lookupError(
                code,
                hostname,
                code === 'ENODATA'
                  ? `${hostname} has no ${
                      family === 0 ? 'address' : `IPv${family} address`
                    } (ENODATA)`
                  : `${hostname} does not exist (ENOTFOUND)`,
              );
      }
    }
    throw (
      notFound ??
      lookupError('ENOTFOUND', hostname, `${hostname} does not exist`)
    );
  }

  /**
   * The files as last read; the first lookup waits for them, later ones
   * start a reread in the background once they are old.
   */
  async #systemFiles(): Promise<SystemFiles> {
    if (!this.#files) {
      await (this.#reading ??= this.#readSystemFiles());
      return this.#files!;
    }
    if (
      this.#now() - this.#files.readAt >= this.#filesMaxAgeMs &&
      !this.#reading
    ) {
      this.#reading = this.#readSystemFiles();
    }
    return this.#files;
  }

  /** Never rejects: a file that cannot be read keeps its last content. */
  async #readSystemFiles(): Promise<void> {
    const readOr = async <T>(
      path: string | null,
      parse: (text: string) => T,
      fallback: T,
    ): Promise<T> => {
      if (path === null) {
        return fallback;
      }
      try {
        return parse(await readSystemFile(path));
      } catch {
        return fallback;
      }
    };
    try {
      const [hosts, search] = await Promise.all([
        readOr(
          this.#hostsPath,
          parseHostsFile,
          this.#files?.hosts ?? new Map(),
        ),
        readOr(
          this.#resolvConfPath,
          parseResolvConf,
          this.#files?.search ?? NO_SEARCH,
        ),
      ]);
      this.#files = { hosts, search, readAt: this.#now() };
    } finally {
      this.#reading = undefined;
    }
  }
}

/** A and AAAA of one name: both for family 0 (IPv4 first), one otherwise. */
async function queryAddresses(
  resolver: Resolver,
  name: string,
  family: number,
): Promise<LookupAddress[]> {
  const query = (queried: 4 | 6) =>
    new Promise<LookupAddress[]>((resolve, reject) => {
      const done = (error: Error | null, addresses: string[]) =>
        error
          ? reject(error)
          : resolve(addresses.map(address => ({ address, family: queried })));
      if (queried === 4) {
        resolver.resolve4(name, done);
      } else {
        resolver.resolve6(name, done);
      }
    });
  if (family === 4 || family === 6) {
    return await query(family);
  }
  const [v4, v6] = await Promise.allSettled([query(4), query(6)]);
  const addresses = [v4, v6].flatMap(result =>
    result.status === 'fulfilled' ? result.value : [],
  );
  if (addresses.length > 0) {
    return addresses;
  }
  const errors = [v4, v6].map(
    result => (result as PromiseRejectedResult).reason as NodeJS.ErrnoException,
  );
  // A failure to get an answer says more than a missing record.
  throw (
    errors.find(error => !NO_SUCH_NAME.has(error.code ?? '')) ??
    errors.find(error => error.code === 'ENODATA') ??
    errors[0]
  );
}

function requireWhole(key: string, value: number | undefined, min: number) {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= min)) {
    throw new InputError(
      `${key} must be a whole number of at least ${min}, got ${value}`,
    );
  }
  return value;
}

/**
 * `healthcheck.network.dns`: the lookup timeout and the bounds on lookups in
 * flight and waiting; unset keys take the defaults.
 * @internal
 */
export function readNameResolutionSettings(
  config: Config,
): NameResolutionSettings {
  const key = 'healthcheck.network.dns';
  return {
    timeoutMs:
      requireWhole(
        `${key}.timeout`,
        readConfigDuration(config, `${key}.timeout`),
        1,
      ) ?? DEFAULT_NAME_RESOLUTION.timeoutMs,
    maxInFlight:
      requireWhole(
        `${key}.maxInFlight`,
        config.getOptionalNumber(`${key}.maxInFlight`),
        1,
      ) ?? DEFAULT_NAME_RESOLUTION.maxInFlight,
    maxQueued:
      requireWhole(
        `${key}.maxQueued`,
        config.getOptionalNumber(`${key}.maxQueued`),
        0,
      ) ?? DEFAULT_NAME_RESOLUTION.maxQueued,
  };
}

let shared: CaresAddressResolver | undefined;

/**
 * The resolver of every guarded lookup and probe given none of its own:
 * default settings, one for the process.
 * @internal
 */
export function defaultAddressResolver(): AddressResolver {
  shared ??= new CaresAddressResolver();
  return shared.resolve;
}
