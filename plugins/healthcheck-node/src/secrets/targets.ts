import { ProbeConfigError } from '../probeConfigError';

/**
 * A host and port to connect to. `host` is a name or a bare IP address
 * (IPv6 without brackets).
 * @public
 */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * The host and port of a `tcp` or `tls` target: `host:port`, `[v6]:port`,
 * or either behind the type's own scheme (`tcp://db:5432`, as Gatus writes
 * it). Without a port, `defaultPort` applies when there is one.
 *
 * @public
 */
export function parseHostPort(
  target: string,
  options: { scheme: string; defaultPort?: number },
): HostPort {
  const prefix = `${options.scheme}://`;
  const rest = target.startsWith(prefix) ? target.slice(prefix.length) : target;
  const match =
    /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:/[\]]+))(?::(\d{1,5}))?\/?$/.exec(rest);
  const host = match?.[1] ?? match?.[2];
  if (!match || !host) {
    throw new ProbeConfigError(
      `Target '${target}' is not host:port (or ${prefix}host:port; IPv6 as [address]:port)`,
    );
  }
  const port = match[3] ? Number(match[3]) : options.defaultPort;
  if (port === undefined) {
    throw new ProbeConfigError(`Target '${target}' needs a port`);
  }
  if (port < 1 || port > 65535) {
    throw new ProbeConfigError(
      `Target '${target}' has port ${port}, outside 1-65535`,
    );
  }
  return { host, port };
}
