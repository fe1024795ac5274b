import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createTcpProbeType } from './tcpProbe';
import {
  findClosedPort,
  type LoopbackServer,
  startTcpServer,
} from './__testUtils__/loopbackServers';
import {
  LOOPBACK_ALLOWED,
  NOTHING_ALLOWED,
  runProbe,
} from './__testUtils__/runProbe';

const secrets = new ProbeSecrets({ REDIS_PASSWORD: 'hunter2' });
const tcp = createTcpProbeType({ networkPolicy: LOOPBACK_ALLOWED, secrets });

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

async function serve(
  onConnection: Parameters<typeof startTcpServer>[0],
): Promise<number> {
  const server = await startTcpServer(onConnection);
  servers.push(server);
  return server.port;
}

/** Echoes every line back upper-cased, prefixed with `+`. */
const shoutingEcho = () =>
  serve(socket =>
    socket.on('data', data =>
      socket.write(`+${data.toString().toUpperCase()}`),
    ),
  );

describe('tcp probe', () => {
  it('connects and reports the address', async () => {
    const port = await serve(() => {});

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {});

    expect(result).toMatchObject({
      ok: true,
      connected: true,
      ip: '127.0.0.1',
    });
    expect(result.error).toBeUndefined();
    expect(result.body).toBeUndefined();
  });

  it('accepts the tcp:// form Gatus uses, and hostnames', async () => {
    const port = await serve(() => {});

    const result = await runProbe(tcp, `tcp://localhost:${port}`, {});

    expect(result).toMatchObject({ ok: true, ip: '127.0.0.1' });
    expect(result.timings!.dns).toBeGreaterThan(0);
  });

  it('sends a payload and waits for a substring', async () => {
    const port = await shoutingEcho();

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      send: 'ping\r\n',
      expect: 'PING',
    });

    expect(result).toMatchObject({ ok: true, body: '+PING\r\n' });
  });

  it('waits for a /regex/ with flags', async () => {
    const port = await shoutingEcho();

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      send: 'status 42',
      expect: '/^\\+status \\d+$/i',
    });

    expect(result).toMatchObject({ ok: true, body: '+STATUS 42' });
  });

  it('waits for a greeting the server sends unasked', async () => {
    const port = await serve(socket => {
      setTimeout(() => socket.write('SSH-2.0-'), 20);
      setTimeout(() => socket.write('OpenSSH_9.6\r\n'), 40);
    });

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      expect: '/^SSH-2\\.0-\\S+\\r\\n/',
    });

    expect(result).toMatchObject({ ok: true, body: 'SSH-2.0-OpenSSH_9.6\r\n' });
  });

  it('substitutes secrets in the payload and redacts them from the answer', async () => {
    let received = '';
    const port = await serve(socket =>
      socket.on('data', data => {
        received += data.toString();
        socket.write(`+OK you said ${data}`);
      }),
    );

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      send: 'AUTH ${secret:REDIS_PASSWORD}\r\n',
      expect: '+OK',
    });

    expect(received).toBe('AUTH hunter2\r\n');
    expect(result).toMatchObject({
      ok: true,
      body: '+OK you said AUTH ***\r\n',
    });
  });

  it('sends nothing when the target is not among the allowedOrigins of the secret in its payload', async () => {
    let connections = 0;
    const port = await serve(() => {
      connections++;
    });
    const bound = createTcpProbeType({
      networkPolicy: LOOPBACK_ALLOWED,
      secrets: new ProbeSecrets({
        REDIS_PASSWORD: {
          value: 'hunter2',
          allowedOrigins: ['tcp://redis.example.com:6379'],
        },
      }),
    });

    const result = await runProbe(bound, `127.0.0.1:${port}`, {
      send: 'AUTH ${secret:REDIS_PASSWORD}\r\n',
    });

    expect(result.error).toEqual({
      kind: 'config',
      message: `send: secret 'REDIS_PASSWORD' may not be sent to tcp://127.0.0.1:${port}: its allowedOrigins do not include that origin`,
    });
    expect(result.connected).toBeUndefined();
    expect(connections).toBe(0);
  });

  it('sends a bound secret to the host and port its allowedOrigins include', async () => {
    let received = '';
    const port = await serve(socket =>
      socket.on('data', data => {
        received += data.toString();
        socket.write('+OK\r\n');
      }),
    );
    const bound = createTcpProbeType({
      networkPolicy: LOOPBACK_ALLOWED,
      secrets: new ProbeSecrets({
        REDIS_PASSWORD: {
          value: 'hunter2',
          allowedOrigins: [`tcp://127.0.0.1:${port}`],
        },
      }),
    });

    const result = await runProbe(bound, `tcp://127.0.0.1:${port}`, {
      send: 'AUTH ${secret:REDIS_PASSWORD}\r\n',
      expect: '+OK',
    });

    expect(result).toMatchObject({ ok: true });
    expect(received).toBe('AUTH hunter2\r\n');
  });

  it('times out, still connected, when the pattern never comes', async () => {
    const port = await shoutingEcho();

    const result = await runProbe(
      tcp,
      `127.0.0.1:${port}`,
      { send: 'hello', expect: 'goodbye' },
      { timeoutMs: 1000 },
    );

    expect(result).toMatchObject({
      ok: false,
      connected: true,
      body: '+HELLO',
      error: {
        kind: 'timeout',
        message: `Timed out after 1000 ms while waiting for goodbye from 127.0.0.1:${port}`,
      },
    });
    // Node's timers count whole ms from the loop's clock, which can lag
    // performance.now() by under a millisecond.
    expect(result.durationMs).toBeGreaterThanOrEqual(999);
  });

  it('fails when the server closes before sending the pattern', async () => {
    const port = await serve(socket => socket.end('bye\n'));

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      expect: 'welcome',
    });

    expect(result).toMatchObject({
      ok: false,
      connected: true,
      body: 'bye\n',
      error: {
        kind: 'other',
        message: `127.0.0.1:${port} closed the connection after 4 bytes without sending welcome`,
      },
    });
  });

  it('reports a refused port as refused and not connected', async () => {
    const port = await findClosedPort();

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {});

    expect(result).toMatchObject({ ok: false, error: { kind: 'refused' } });
    expect(result.connected).toBeUndefined();
  });

  it('reports a reset while waiting as reset', async () => {
    const port = await serve(socket => socket.resetAndDestroy());

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      expect: 'anything',
    });

    expect(result.error?.kind).toBe('reset');
  });

  it('refuses loopback under the default policy, naming the setting', async () => {
    const closedTcp = createTcpProbeType({
      networkPolicy: NOTHING_ALLOWED,
      secrets,
    });

    const literal = await runProbe(closedTcp, '127.0.0.1:6379', {});
    const named = await runProbe(closedTcp, '[::1]:6379', {});
    const resolved = await runProbe(closedTcp, 'localhost:6379', {});

    for (const result of [literal, named, resolved]) {
      expect(result.error?.kind).toBe('guard');
      expect(result.error?.message).toContain(
        'set healthcheck.network.allowLoopback: true to allow it',
      );
    }
  });

  it.each([
    ['db.internal', "Target 'db.internal' needs a port"],
    ['db:99999', "Target 'db:99999' has port 99999, outside 1-65535"],
  ])('refuses the target %j as config', async (target, message) => {
    expect((await runProbe(tcp, target, {})).error).toEqual({
      kind: 'config',
      message,
    });
  });

  it('keeps no more than 64 KiB of an answer without the pattern, however large the chunks', async () => {
    const port = await serve(socket => {
      // A small chunk first, so the large one lands on a partly full buffer.
      socket.write('x'.repeat(100));
      setTimeout(() => socket.write('y'.repeat(200_000)), 20);
    });

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      expect: 'never',
    });

    expect(result).toMatchObject({
      ok: false,
      connected: true,
      error: {
        kind: 'other',
        message: `127.0.0.1:${port} sent 65536 bytes without never`,
      },
    });
    expect(result.body).toHaveLength(64 * 1024);
  });

  it('refuses to send more than 64 KiB, whatever a module or an old row gives it', async () => {
    let received = 0;
    const port = await serve(socket =>
      socket.on('data', data => {
        received += data.length;
      }),
    );

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      send: 'z'.repeat(64 * 1024 + 1),
    });

    expect(result.error).toEqual({
      kind: 'config',
      message: 'send is 65537 bytes; a tcp probe sends at most 65536',
    });
    expect(result.connected).toBeUndefined();
    expect(received).toBe(0);
  });

  it('counts the payload in bytes, not characters', async () => {
    const result = await runProbe(tcp, '127.0.0.1:1', {
      send: 'é'.repeat(32 * 1024 + 1),
    });

    expect(result.error).toEqual({
      kind: 'config',
      message: 'send is 65538 bytes; a tcp probe sends at most 65536',
    });
  });

  it('refuses a pattern that does not compile as config', async () => {
    const result = await runProbe(tcp, '127.0.0.1:1', { expect: '/(/' });

    expect(result.error?.kind).toBe('config');
    expect(result.error?.message).toMatch(
      /^Pattern \/\(\/ is not a valid regular expression/,
    );
  });

  it('waits for a catastrophic-backtracking pattern while a peer trickles 64 KiB, the event loop staying free', async () => {
    const port = await serve(socket => {
      let sent = 0;
      const trickle = setInterval(() => {
        if (sent >= 64 * 1024 || socket.destroyed) {
          clearInterval(trickle);
          return;
        }
        socket.write('a'.repeat(512));
        sent += 512;
      }, 1);
      socket.on('close', () => clearInterval(trickle));
    });
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const result = await runProbe(
      tcp,
      `127.0.0.1:${port}`,
      { expect: '/^(\\w+\\s?)*!$/' },
      { timeoutMs: 20_000 },
    );
    delay.disable();

    expect(result.error?.message).toBe(
      `127.0.0.1:${port} sent 65536 bytes without /^(\\w+\\s?)*!$/`,
    );
    // JavaScript's own engine would hold the loop for minutes on one scan.
    expect(delay.percentile(99) / 1e6).toBeLessThan(50);
  });

  it('finds a substring pattern that arrives split across packets', async () => {
    const port = await serve(socket => {
      socket.write('+PO');
      setTimeout(() => socket.end('NG\r\n'), 20);
    });

    const result = await runProbe(tcp, `127.0.0.1:${port}`, {
      expect: '+PONG',
    });

    expect(result).toMatchObject({ ok: true, body: '+PONG\r\n' });
  });
});
