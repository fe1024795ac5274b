import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { FaultProxy } from './FaultProxy';

/** A TCP server on 127.0.0.1 that echoes what it reads, and its sockets. */
async function startEchoServer(): Promise<{
  server: Server;
  port: number;
  sockets: Socket[];
}> {
  const sockets: Socket[] = [];
  const server = createServer({ allowHalfOpen: true }, socket => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, sockets };
}

/** A client connection that keeps what it reads and how it closed. */
function client(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  const seen = { text: '', error: undefined as string | undefined };
  socket.setEncoding('utf8');
  socket.on('data', chunk => {
    seen.text += chunk;
  });
  socket.on('error', error => {
    seen.error = (error as NodeJS.ErrnoException).code;
  });
  // Not events.once, which rejects on the error that a reset brings.
  const closed = new Promise<void>(resolve => socket.once('close', resolve));
  return { socket, seen, closed };
}

async function until(condition: () => boolean, timeoutMs = 2_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error('Timed out');
    }
    await new Promise(resolve => setTimeout(resolve, 5));
  }
}

describe('FaultProxy', () => {
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let proxy: FaultProxy;

  beforeEach(async () => {
    echo = await startEchoServer();
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: echo.port });
  });

  afterEach(async () => {
    await proxy.close();
    echo.sockets.forEach(socket => socket.destroy());
    echo.server.close();
  });

  it('forwards both ways, and an end after the data before it', async () => {
    const { socket, seen, closed } = client(proxy.port);
    socket.write('hello');
    await until(() => seen.text === 'hello');
    socket.end(' world');
    await closed;

    expect(seen).toEqual({ text: 'hello world', error: undefined });
    expect(proxy.stats()).toEqual({
      accepted: 1,
      refused: 0,
      dropped: 0,
      open: 0,
    });
  });

  it('resets every open connection on drop, with the target side too', async () => {
    const first = client(proxy.port);
    const second = client(proxy.port);
    first.socket.write('a');
    second.socket.write('b');
    await until(() => first.seen.text === 'a' && second.seen.text === 'b');

    proxy.drop();
    await Promise.all([first.closed, second.closed]);
    await until(() => echo.sockets.every(socket => socket.destroyed));

    expect(first.seen.error).toBe('ECONNRESET');
    expect(second.seen.error).toBe('ECONNRESET');
    expect(proxy.stats()).toMatchObject({ dropped: 2, open: 0 });
  });

  it('refuses new connections while dropping, and forwards again once reopened', async () => {
    proxy.drop();
    const refused = client(proxy.port);
    refused.socket.write('lost');
    await refused.closed;

    expect(refused.seen).toEqual({ text: '', error: 'ECONNRESET' });
    expect(echo.sockets).toHaveLength(0);
    expect(proxy.stats()).toMatchObject({ accepted: 0, refused: 1 });

    proxy.reopen();
    const again = client(proxy.port);
    again.socket.write('back');
    await until(() => again.seen.text === 'back');
    again.socket.end();
    expect(proxy.mode).toEqual({ kind: 'pass' });
  });

  it('holds every chunk for the delay, in each direction', async () => {
    proxy.delay(150);
    const { socket, seen } = client(proxy.port);
    await once(socket, 'connect');
    const sentAt = Date.now();
    socket.write('ping');
    await until(() => seen.text === 'ping');
    const roundTripMs = Date.now() - sentAt;
    socket.end();

    // Once on the way to the echo server, once on the way back.
    expect(roundTripMs).toBeGreaterThanOrEqual(290);
    expect(roundTripMs).toBeLessThan(1_000);
  });

  it('keeps the order of chunks when the delay is switched off mid-stream', async () => {
    proxy.delay(200);
    const { socket, seen } = client(proxy.port);
    await once(socket, 'connect');
    socket.write('first ');
    await new Promise(resolve => setTimeout(resolve, 20));
    proxy.pass();
    socket.write('second');
    await until(() => seen.text.length === 'first second'.length);
    socket.end();

    expect(seen.text).toBe('first second');
  });

  it('refuses to delay while dropping, and rejects a negative delay', () => {
    expect(() => proxy.delay(-1)).toThrow('>= 0');
    proxy.drop();
    expect(() => proxy.delay(100)).toThrow('reopen it first');
  });

  it('closes the client when the target refuses, and when the target ends', async () => {
    const port = echo.port;
    echo.server.close();
    await until(() => echo.server.listening === false);
    const refused = client(proxy.port);
    await refused.closed;
    expect(refused.seen.text).toBe('');

    // A target that ends its side, as a database does on shutdown.
    const ending = createServer(socket => socket.end('bye'));
    ending.listen(port, '127.0.0.1');
    await once(ending, 'listening');
    try {
      const told = client(proxy.port);
      await until(() => told.seen.text === 'bye');
      await told.closed;
      expect(told.seen.error).toBeUndefined();
    } finally {
      ending.close();
    }
  });
});
