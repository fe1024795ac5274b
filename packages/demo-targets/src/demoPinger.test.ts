import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { startDemoPinger } from './demoPinger';

describe('startDemoPinger', () => {
  let server: Server;
  const received: Array<{ url?: string; body: string }> = [];
  let status = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', chunk => (body += chunk));
      req.on('end', () => {
        received.push({ url: req.url, body });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise(resolve => server.close(resolve)));

  it('pings start, then success with what it did, and logs failures once', async () => {
    const { port } = server.address() as AddressInfo;
    const lines: string[] = [];
    const pinger = startDemoPinger({
      url: `http://127.0.0.1:${port}/ping/token`,
      intervalMs: 100,
      exportMs: 10,
      log: line => lines.push(line),
    });
    const deadline = Date.now() + 5_000;
    while (received.length < 2 && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }
    expect(received.slice(0, 2)).toEqual([
      { url: '/ping/token/start', body: '' },
      { url: '/ping/token', body: 'exported 1000 rows' },
    ]);
    status = 503;
    await new Promise(resolve => setTimeout(resolve, 350));
    status = 200;
    await new Promise(resolve => setTimeout(resolve, 300));
    pinger.stop();
    expect(lines).toEqual([
      'demo-targets: heartbeat ping failed (HTTP 503); retrying every 0.1 s',
      'demo-targets: heartbeat pings get through again',
    ]);
  });
});
