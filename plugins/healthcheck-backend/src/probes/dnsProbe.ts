/**
 * The `dns` probe type: one query for one record type, against the system's
 * resolver or a configured server, with the answers and the response code.
 */
import {
  type DnsProbeConfig,
  dnsProbeConfigSchema,
  type DnsRecordType,
  parseHostPort,
  ProbeConfigError,
  type ProbeResult,
  type ProbeType,
} from '@vigil/plugin-healthcheck-node';
import { Resolver } from 'node:dns';
import { isIP } from 'node:net';
import {
  type AddressResolver,
  defaultAddressResolver,
} from './CaresAddressResolver';
import { checkAddress, NetworkGuardError } from './networkGuard';
import { truncateText } from './probeLimits';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';

/**
 * Node reports DNS response codes other than NOERROR-with-answers as
 * errors; these are the ones that are answers, not failures to get one.
 */
const RCODE_BY_ERROR_CODE: Record<string, string> = {
  ENODATA: 'NOERROR',
  ENOTFOUND: 'NXDOMAIN',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  EFORMERR: 'FORMERR',
  ENOTIMP: 'NOTIMP',
};

/**
 * The response code a Node DNS error stands for, or `undefined` when the
 * error means no answer arrived (a timeout, a refused connection, a reply
 * that did not parse).
 * @internal
 */
export function rcodeOfDnsError(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? RCODE_BY_ERROR_CODE[code] : undefined;
}

type AnyRecord =
  | string
  | string[]
  | { exchange: string; priority: number }
  | { name: string; port: number; priority: number; weight: number };

/**
 * One answer as a string: an address or name as is, `priority exchange`
 * for MX, the joined chunks for TXT, `priority weight port target` for SRV.
 * @internal
 */
export function formatDnsAnswer(record: AnyRecord): string {
  if (typeof record === 'string') {
    return record;
  }
  if (Array.isArray(record)) {
    return record.join('');
  }
  if ('exchange' in record) {
    return `${record.priority} ${record.exchange}`;
  }
  return `${record.priority} ${record.weight} ${record.port} ${record.name}`;
}

/**
 * What the probe keeps of the answers for its conditions (the body), whatever
 * a server or a resolver module sends (a reply over TCP holds up to 64 KiB):
 * the first answers, each cut to a length (a long DKIM key fits), and all of
 * them to a total. What a run stores is cut further by boundProbeResult.
 */
const MAX_DNS_ANSWERS = 100;
const MAX_DNS_ANSWER_CHARS = 4 * 1024;
const MAX_DNS_ANSWERS_TOTAL_CHARS = 64 * 1024;

/**
 * The answers a result keeps, in order: at most 100, each at most 4 KiB and
 * together at most 64 KiB, and whether any were cut or left out.
 * @internal
 */
export function keepDnsAnswers(answers: readonly string[]): {
  answers: string[];
  truncated: boolean;
} {
  const kept: string[] = [];
  let total = 0;
  for (const answer of answers.slice(0, MAX_DNS_ANSWERS)) {
    const text = truncateText(answer, MAX_DNS_ANSWER_CHARS);
    if (total + text.length > MAX_DNS_ANSWERS_TOTAL_CHARS) {
      break;
    }
    kept.push(text);
    total += text.length;
  }
  return {
    answers: kept,
    truncated:
      kept.length < answers.length ||
      kept.some((text, index) => text !== answers[index]),
  };
}

function queryWithResolver(
  resolver: Resolver,
  name: string,
  recordType: DnsRecordType,
): Promise<AnyRecord[]> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, records: AnyRecord[]) =>
      error ? reject(error) : resolve(records);
    switch (recordType) {
      case 'A':
        resolver.resolve4(name, done);
        break;
      case 'AAAA':
        resolver.resolve6(name, done);
        break;
      case 'CNAME':
        resolver.resolveCname(name, done);
        break;
      case 'MX':
        resolver.resolveMx(name, done);
        break;
      case 'TXT':
        resolver.resolveTxt(name, done);
        break;
      case 'NS':
        resolver.resolveNs(name, done);
        break;
      case 'SRV':
        resolver.resolveSrv(name, done);
        break;
      default:
        reject(new ProbeConfigError(`Unknown DNS record type '${recordType}'`));
    }
  });
}

function queryWithAddressResolver(
  resolveAddresses: AddressResolver,
  name: string,
  family: 4 | 6,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    resolveAddresses(name, { family, all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map(entry => entry.address)),
    );
  });
}

/** The configured server as `setServers` takes it, after the guard has judged it. */
function serverAddress(
  server: string,
  options: BuiltinProbeTypeOptions,
): string {
  const { host, port } = parseHostPort(server, {
    scheme: 'dns',
    defaultPort: 53,
  });
  if (isIP(host) === 0) {
    throw new ProbeConfigError(
      `DNS server '${server}' must be an IP address, optionally with a port`,
    );
  }
  const decision = checkAddress(host, options.networkPolicy);
  if (!decision.allowed) {
    throw new NetworkGuardError(host, decision);
  }
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Creates the `dns` probe type. Without a configured server, A and AAAA
 * queries go through the probes' address resolver (the hosts file and the
 * search list count, as they do for every other probe) and the other types
 * through the name servers the system is configured with.
 *
 * @public
 */
export function createDnsProbeType(
  options: BuiltinProbeTypeOptions,
): ProbeType<DnsProbeConfig> {
  return {
    type: 'dns',
    configSchema: dnsProbeConfigSchema,
    run: context =>
      runProbeWithDeadline(context, options.secrets, (signal, progress) =>
        probeDns(
          context.target,
          context.config ?? {},
          context.timeoutMs,
          signal,
          progress,
        ),
      ),
  };

  async function probeDns(
    name: string,
    config: DnsProbeConfig,
    timeoutMs: number,
    signal: AbortSignal,
    progress: ProbeProgress,
  ): Promise<Omit<ProbeResult, 'durationMs'>> {
    const recordType = config.recordType ?? 'A';
    const server = config.server
      ? serverAddress(config.server, options)
      : undefined;
    progress.phase = `while resolving ${recordType} ${name}${
      server ? ` at ${server}` : ''
    }`;

    let answers: string[];
    try {
      if (!server && (recordType === 'A' || recordType === 'AAAA')) {
        answers = await queryWithAddressResolver(
          options.resolve ?? defaultAddressResolver(),
          name,
          recordType === 'A' ? 4 : 6,
        );
      } else {
        // Its own timeout is longer than the probe's, so the deadline speaks.
        const resolver = new Resolver({ timeout: timeoutMs + 1000, tries: 1 });
        if (server) {
          resolver.setServers([server]);
        }
        const cancel = () => resolver.cancel();
        signal.addEventListener('abort', cancel, { once: true });
        try {
          const records = await queryWithResolver(resolver, name, recordType);
          answers = records.map(formatDnsAnswer);
        } finally {
          signal.removeEventListener('abort', cancel);
        }
      }
    } catch (error) {
      const rcode = rcodeOfDnsError(error);
      if (rcode === undefined) {
        throw error;
      }
      return { ok: true, dnsRcode: rcode, dnsAnswers: [], body: '' };
    }
    const kept = keepDnsAnswers(answers);
    return {
      ok: true,
      dnsRcode: 'NOERROR',
      dnsAnswers: kept.answers,
      body: kept.answers.join('\n'),
      ...(kept.truncated ? { bodyTruncated: true } : {}),
    };
  }
}
