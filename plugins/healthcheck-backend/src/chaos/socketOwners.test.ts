import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { createSocketOwnerLookup, parseProcNetTcp } from './socketOwners';

// Two rows as Linux writes them: a listener on 127.0.0.1:8080, and a
// connection to it from port 40000.
const PROC_NET_TCP = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0',
  '   1: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0000000000000000 20 4 30 10 -1',
  '',
].join('\n');

describe('parseProcNetTcp', () => {
  it('reads addresses, ports and inodes', () => {
    expect(parseProcNetTcp(PROC_NET_TCP)).toEqual([
      {
        localAddress: '127.0.0.1',
        localPort: 8080,
        remoteAddress: '0.0.0.0',
        remotePort: 0,
        inode: 1111,
      },
      {
        localAddress: '127.0.0.1',
        localPort: 40000,
        remoteAddress: '127.0.0.1',
        remotePort: 8080,
        inode: 2222,
      },
    ]);
  });
});

describe('createSocketOwnerLookup', () => {
  const fakeProc = {
    readText: () => PROC_NET_TCP,
    listDir: (path: string) => (path === '/proc/7/fd' ? ['0', '9'] : ['0']),
    readLink: (path: string) =>
      path === '/proc/7/fd/9' ? 'socket:[2222]' : '/dev/null',
  };

  it('finds the process that holds the client end', () => {
    const ownerOf = createSocketOwnerLookup(fakeProc);
    expect(ownerOf({ clientPort: 40000, serverPort: 8080 }, [5, 7])).toBe(7);
  });

  it('finds none when no given process holds it, or no such connection is open', () => {
    const ownerOf = createSocketOwnerLookup(fakeProc);
    expect(ownerOf({ clientPort: 40000, serverPort: 8080 }, [5])).toBe(
      undefined,
    );
    expect(ownerOf({ clientPort: 40001, serverPort: 8080 }, [7])).toBe(
      undefined,
    );
  });

  (process.platform === 'linux' ? describe : describe.skip)('on Linux', () => {
    it('finds this process for a connection it made, on the real /proc', async () => {
      const ownerOf = createSocketOwnerLookup();
      const owners: Array<number | undefined> = [];
      const server = createServer((socket: Socket) => {
        owners.push(
          ownerOf(
            {
              clientPort: socket.remotePort!,
              serverPort: socket.localPort!,
            },
            [process.pid],
          ),
        );
        socket.end();
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const client = connect({
          host: '127.0.0.1',
          port: (server.address() as { port: number }).port,
        });
        await once(client, 'close');
      } finally {
        server.close();
      }
      expect(owners).toEqual([process.pid]);
    });
  });
});
