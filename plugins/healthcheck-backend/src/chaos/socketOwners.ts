import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One row of `/proc/net/tcp`: an IPv4 TCP socket. @internal */
export interface TcpSocketEntry {
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  inode: number;
}

/** `0100007F:1F90` (little-endian address, big-endian port) as `127.0.0.1`, 8080. */
function parseEndpoint(text: string): { address: string; port: number } {
  const [address, port] = text.split(':');
  const bytes = (address.match(/../g) ?? []).map(byte => parseInt(byte, 16));
  return { address: bytes.reverse().join('.'), port: parseInt(port, 16) };
}

/**
 * The sockets `/proc/net/tcp` lists (Linux): addresses, ports and the inode
 * that names the socket in its process's `/proc/<pid>/fd`.
 * @internal
 */
export function parseProcNetTcp(text: string): TcpSocketEntry[] {
  return text
    .split('\n')
    .slice(1)
    .map(line => line.trim().split(/\s+/))
    .filter(fields => fields.length >= 10)
    .map(fields => {
      const local = parseEndpoint(fields[1]);
      const remote = parseEndpoint(fields[2]);
      return {
        localAddress: local.address,
        localPort: local.port,
        remoteAddress: remote.address,
        remotePort: remote.port,
        inode: Number(fields[9]),
      };
    });
}

/** What {@link createSocketOwnerLookup} reads; the real `/proc` by default. @internal */
export interface ProcFiles {
  readText(path: string): string;
  listDir(path: string): string[];
  readLink(path: string): string;
}

const REAL_PROC: ProcFiles = {
  readText: path => readFileSync(path, 'utf8'),
  listDir: path => readdirSync(path),
  readLink: path => readlinkSync(path),
};

/**
 * Which process made a loopback connection: for the server side of a
 * connection on 127.0.0.1 (the client's port and the server's), the one of
 * `pids` that holds the client's end. The probes under test send nothing
 * that says which instance sent them, and need not: the kernel knows.
 * Call it while the connection is open (from the server's `connection`
 * event); `undefined` when none of the processes holds it, or off Linux.
 * @internal
 */
export function createSocketOwnerLookup(
  proc: ProcFiles = REAL_PROC,
): (
  connection: { clientPort: number; serverPort: number },
  pids: readonly number[],
) => number | undefined {
  return ({ clientPort, serverPort }, pids) => {
    let table: TcpSocketEntry[];
    try {
      table = parseProcNetTcp(proc.readText('/proc/net/tcp'));
    } catch {
      return undefined;
    }
    const clientEnd = table.find(
      entry =>
        entry.localPort === clientPort &&
        entry.remotePort === serverPort &&
        entry.localAddress === '127.0.0.1',
    );
    if (!clientEnd) {
      return undefined;
    }
    const link = `socket:[${clientEnd.inode}]`;
    for (const pid of pids) {
      let fds: string[];
      try {
        fds = proc.listDir(`/proc/${pid}/fd`);
      } catch {
        continue; // the process is gone
      }
      for (const fd of fds) {
        try {
          if (proc.readLink(`/proc/${pid}/fd/${fd}`) === link) {
            return pid;
          }
        } catch {
          // closed between the listing and the read
        }
      }
    }
    return undefined;
  };
}
