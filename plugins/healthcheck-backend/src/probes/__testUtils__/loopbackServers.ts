/**
 * Real servers on 127.0.0.1 for probe tests: HTTP, HTTPS, TCP, a port with
 * nothing listening, and a small UDP DNS server. Each is closed with every
 * connection it holds, so a server that never answers does not keep Jest
 * waiting.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import {
  createServer as createHttpServer,
  type RequestListener,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createTcpServer,
  type Server,
  type Socket,
} from 'node:net';
import type { TestCertificate } from './selfSignedCertificate';

/** A running test server. */
export interface LoopbackServer {
  port: number;
  close(): Promise<void>;
}

async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  server.on('connection', socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') {
    throw new Error('The test server has no port');
  }
  return {
    port: address.port,
    close: () =>
      new Promise<void>(resolve => {
        for (const socket of sockets) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server on 127.0.0.1. */
export function startHttpServer(
  handler: RequestListener,
): Promise<LoopbackServer> {
  return listenOnLoopback(createHttpServer(handler));
}

/** An HTTPS server on 127.0.0.1 presenting the given certificate. */
export function startHttpsServer(
  certificate: TestCertificate,
  handler: RequestListener,
): Promise<LoopbackServer> {
  return listenOnLoopback(
    createHttpsServer(
      { cert: certificate.cert, key: certificate.key },
      handler,
    ),
  );
}

/** A TCP server on 127.0.0.1 that hands each connection to `onConnection`. */
export function startTcpServer(
  onConnection: (socket: Socket) => void,
): Promise<LoopbackServer> {
  return listenOnLoopback(createTcpServer(onConnection));
}

/** A loopback port that was free a moment ago: connecting to it is refused. */
export async function findClosedPort(): Promise<number> {
  const server = await startTcpServer(() => {});
  await server.close();
  return server.port;
}

/** What the test DNS server answers for one name. */
export type DnsTestZone = Record<
  string,
  { A?: string[]; TXT?: string[] } | 'NXDOMAIN' | 'SERVFAIL' | 'SILENT'
>;

const DNS_TYPE_A = 1;
const DNS_TYPE_TXT = 16;
const DNS_TYPE_NAMES: Record<number, string> = {
  1: 'A',
  16: 'TXT',
  28: 'AAAA',
};
const DNS_RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

function readQuestion(message: Buffer): {
  name: string;
  type: number;
  end: number;
} {
  const labels: string[] = [];
  let offset = 12;
  while (message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString());
    offset += 1 + length;
  }
  const type = message.readUInt16BE(offset + 1);
  return { name: labels.join('.').toLowerCase(), type, end: offset + 5 };
}

function answerRecord(type: number, data: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  header.writeUInt16BE(type, 2);
  header.writeUInt16BE(1, 4); // class IN
  header.writeUInt32BE(60, 6); // TTL
  header.writeUInt16BE(data.length, 10);
  return Buffer.concat([header, data]);
}

/** A running test DNS server, and the questions it was asked. */
export interface LoopbackDnsServer extends LoopbackServer {
  /** `name TYPE` per question, in arrival order: `app.test A`. */
  readonly questions: string[];
}

/**
 * A UDP DNS server on 127.0.0.1 that answers one question per message from
 * a fixed zone: A and TXT records, NXDOMAIN, SERVFAIL, or no answer at all.
 * Names not in the zone are NXDOMAIN, or what `otherNames` says.
 */
export async function startDnsServer(
  zone: DnsTestZone,
  options: { otherNames?: 'NXDOMAIN' | 'SILENT' } = {},
): Promise<LoopbackDnsServer> {
  // A flood of questions (a test sends 200 at once) would overflow the
  // default receive buffer (about 200 small datagrams) while this process is
  // busy, and the kernel would drop the one question a test waits for.
  const socket = createSocket({
    type: 'udp4',
    recvBufferSize: 4 * 1024 * 1024,
  });
  const questions: string[] = [];
  socket.on('message', (query: Buffer, peer: RemoteInfo) => {
    const question = readQuestion(query);
    questions.push(
      `${question.name} ${DNS_TYPE_NAMES[question.type] ?? question.type}`,
    );
    const entry = zone[question.name] ?? options.otherNames ?? 'NXDOMAIN';
    if (entry === 'SILENT') {
      return;
    }
    let rcode: number = DNS_RCODE.NOERROR;
    let answers: Buffer[] = [];
    if (entry === 'NXDOMAIN' || entry === 'SERVFAIL') {
      rcode = DNS_RCODE[entry];
    } else if (question.type === DNS_TYPE_A) {
      answers = (entry.A ?? []).map(address =>
        answerRecord(DNS_TYPE_A, Buffer.from(address.split('.').map(Number))),
      );
    } else if (question.type === DNS_TYPE_TXT) {
      answers = (entry.TXT ?? []).map(text =>
        answerRecord(
          DNS_TYPE_TXT,
          Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]),
        ),
      );
    }
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    header.writeUInt16BE(0x8180 | rcode, 2); // response, recursion, rcode
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const reply = Buffer.concat([
      header,
      query.subarray(12, question.end),
      ...answers,
    ]);
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>(resolve => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    questions,
    close: () => new Promise<void>(resolve => socket.close(() => resolve())),
  };
}
