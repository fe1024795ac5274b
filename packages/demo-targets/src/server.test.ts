import { connect } from 'node:net';
import {
  answerTcpLines,
  ControlState,
  DemoTargets,
  flappingPhase,
  parseControlTargetPath,
  parseIntegerParam,
  parseModeRequestBody,
  parseSwitchableTargetPath,
  readDemoTargetsSettings,
  startDemoTargets,
} from './server';

describe('parseSwitchableTargetPath', () => {
  it('reads the environment and system of /{environment}/{system}/health', () => {
    expect(parseSwitchableTargetPath('/production/payments/health')).toEqual({
      environment: 'production',
      system: 'payments',
    });
  });

  it('accepts anything under the health path', () => {
    expect(
      parseSwitchableTargetPath('/canary/checkout/health/db/ping'),
    ).toEqual({ environment: 'canary', system: 'checkout' });
  });

  it('rejects paths without the health segment or with invalid names', () => {
    expect(parseSwitchableTargetPath('/production/payments')).toBeUndefined();
    expect(
      parseSwitchableTargetPath('/production/payments/status'),
    ).toBeUndefined();
    expect(
      parseSwitchableTargetPath('/prod%20uction/payments/health'),
    ).toBeUndefined();
    expect(parseSwitchableTargetPath('/')).toBeUndefined();
  });
});

describe('parseControlTargetPath', () => {
  it('reads /control/{environment}/{system}', () => {
    expect(parseControlTargetPath('/control/staging/identity')).toEqual({
      ok: true,
      value: { environment: 'staging', system: 'identity' },
    });
  });

  it('says which shape it expected when segments are missing or extra', () => {
    for (const path of [
      '/control/staging',
      '/control/staging/identity/x',
      '/control//identity',
    ]) {
      expect(parseControlTargetPath(path)).toEqual({
        ok: false,
        message: `Expected /control/{environment}/{system}, got ${path}`,
      });
    }
  });

  it('names the invalid part', () => {
    const parsed = parseControlTargetPath('/control/staging/bad..name');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(
      /^Invalid system name "bad\.\.name"/,
    );
  });
});

describe('parseModeRequestBody', () => {
  it('accepts each mode', () => {
    for (const mode of ['healthy', 'degraded', 'failing', 'hang']) {
      expect(parseModeRequestBody(JSON.stringify({ mode }))).toEqual({
        ok: true,
        value: mode,
      });
    }
  });

  it.each([
    ['not JSON', 'mode=failing', /^Request body is not valid JSON/],
    ['an array', '["failing"]', /^Request body is not an object/],
    ['without mode', '{"state":"failing"}', /^Request body has no "mode"/],
    ['an unknown mode', '{"mode":"broken"}', /^Unknown mode "broken"/],
    ['a mode of the wrong type', '{"mode":3}', /^Unknown mode 3/],
  ])('rejects a body that is %s, listing the valid modes', (_, body, start) => {
    const parsed = parseModeRequestBody(body);
    expect(parsed.ok).toBe(false);
    const message = !parsed.ok ? parsed.message : '';
    expect(message).toMatch(start);
    expect(message).toContain('healthy, degraded, failing, hang');
  });
});

describe('parseIntegerParam', () => {
  const spec = { name: 'ms', defaultValue: 1500, min: 0, max: 60000 };

  it('uses the default when the parameter is absent or empty', () => {
    expect(parseIntegerParam(null, spec)).toEqual({ ok: true, value: 1500 });
    expect(parseIntegerParam('', spec)).toEqual({ ok: true, value: 1500 });
  });

  it('accepts whole numbers within bounds', () => {
    expect(parseIntegerParam('0', spec)).toEqual({ ok: true, value: 0 });
    expect(parseIntegerParam('60000', spec)).toEqual({
      ok: true,
      value: 60000,
    });
  });

  it.each(['-1', '1.5', 'abc', '60001', '1e3'])('rejects "%s"', raw => {
    expect(parseIntegerParam(raw, spec)).toEqual({
      ok: false,
      message: `Query parameter "ms" must be a whole number from 0 to 60000, got "${raw}"`,
    });
  });
});

describe('flappingPhase', () => {
  it('is healthy for the first period, failing for the next, and so on', () => {
    expect(flappingPhase(0, 30)).toEqual({
      healthy: true,
      secondsUntilChange: 30,
    });
    expect(flappingPhase(29_500, 30)).toEqual({
      healthy: true,
      secondsUntilChange: 1,
    });
    expect(flappingPhase(30_000, 30)).toEqual({
      healthy: false,
      secondsUntilChange: 30,
    });
    expect(flappingPhase(61_000, 30)).toEqual({
      healthy: true,
      secondsUntilChange: 29,
    });
  });
});

describe('answerTcpLines', () => {
  it('answers PING with PONG, echoes other lines and keeps line endings', () => {
    expect(answerTcpLines('PING\nhello\r\nPING\r\n')).toEqual({
      reply: 'PONG\nhello\r\nPONG\r\n',
      rest: '',
    });
  });

  it('holds back an unfinished line', () => {
    expect(answerTcpLines('PING\nPIN')).toEqual({
      reply: 'PONG\n',
      rest: 'PIN',
    });
    expect(answerTcpLines('')).toEqual({ reply: '', rest: '' });
  });

  it('answers only an exact PING', () => {
    expect(answerTcpLines('ping\n PING\n').reply).toBe('ping\n PING\n');
  });
});

describe('readDemoTargetsSettings', () => {
  it('defaults to 127.0.0.1:7010 for HTTP and 7011 for TCP', () => {
    expect(readDemoTargetsSettings({})).toEqual({
      ok: true,
      value: { httpPort: 7010, tcpPort: 7011, host: '127.0.0.1' },
    });
  });

  it('reads the ports and host from the environment', () => {
    expect(
      readDemoTargetsSettings({
        DEMO_TARGETS_HTTP_PORT: '8010',
        DEMO_TARGETS_TCP_PORT: '0',
        DEMO_TARGETS_HOST: '::1',
      }),
    ).toEqual({
      ok: true,
      value: { httpPort: 8010, tcpPort: 0, host: '::1' },
    });
  });

  it('rejects a port that is not a port number', () => {
    expect(readDemoTargetsSettings({ DEMO_TARGETS_TCP_PORT: '70000' })).toEqual(
      {
        ok: false,
        message:
          'DEMO_TARGETS_TCP_PORT must be a port number from 0 to 65535, got "70000"',
      },
    );
  });
});

describe('startDemoTargets', () => {
  const START_TIME = Date.parse('2030-01-01T00:00:00.000Z');
  let targets: DemoTargets;
  let clock: number;
  let logLines: string[];
  let base: string;

  beforeEach(async () => {
    clock = START_TIME;
    logLines = [];
    targets = await startDemoTargets({
      httpPort: 0,
      tcpPort: 0,
      log: line => logLines.push(line),
      now: () => clock,
    });
    base = `http://127.0.0.1:${targets.httpPort}`;
  });

  afterEach(async () => {
    await targets.close();
  });

  async function get(path: string) {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: await response.json() };
  }

  async function put(path: string, body: string) {
    const response = await fetch(`${base}${path}`, { method: 'PUT', body });
    return { status: response.status, body: await response.json() };
  }

  async function control(): Promise<ControlState> {
    return (await get('/control')).body;
  }

  async function untilHanging(count: number) {
    while ((await control()).hangingRequests !== count) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }
  }

  async function timed<T>(fn: () => Promise<T>) {
    const start = performance.now();
    const result = await fn();
    return { result, elapsedMs: performance.now() - start };
  }

  it('listens on the ephemeral ports it was given, one for HTTP, one for TCP', () => {
    expect(targets.httpPort).toBeGreaterThan(0);
    expect(targets.tcpPort).toBeGreaterThan(0);
    expect(targets.tcpPort).not.toBe(targets.httpPort);
  });

  describe('fixed endpoints', () => {
    it('/healthy answers 200 with status UP', async () => {
      expect(await get('/healthy')).toEqual({
        status: 200,
        body: { status: 'UP' },
      });
    });

    it('/failing answers 503 with status DOWN', async () => {
      expect(await get('/failing')).toEqual({
        status: 503,
        body: { status: 'DOWN' },
      });
    });

    // A lower bound only: a busy machine makes the answer later, never earlier.
    it('/slow answers 200 after the requested milliseconds', async () => {
      const { result, elapsedMs } = await timed(() => get('/slow?ms=300'));
      expect(result).toEqual({
        status: 200,
        body: { status: 'UP', delayMs: 300 },
      });
      expect(elapsedMs).toBeGreaterThanOrEqual(290);
    });

    it('/slow rejects a delay that is not a whole number of milliseconds', async () => {
      expect(await get('/slow?ms=-5')).toEqual({
        status: 400,
        body: {
          error: {
            name: 'InputError',
            message:
              'Query parameter "ms" must be a whole number from 0 to 60000, got "-5"',
          },
        },
      });
    });

    it('/flapping alternates between 200 and 503 every period', async () => {
      expect(await get('/flapping')).toEqual({
        status: 200,
        body: { status: 'UP', secondsUntilChange: 30 },
      });
      clock = START_TIME + 30_000;
      expect(await get('/flapping')).toEqual({
        status: 503,
        body: { status: 'DOWN', secondsUntilChange: 30 },
      });
      clock = START_TIME + 12_000;
      expect(await get('/flapping?period=10')).toEqual({
        status: 503,
        body: { status: 'DOWN', secondsUntilChange: 8 },
      });
      expect((await get('/flapping?period=0')).status).toBe(400);
    });

    it('/hang accepts the request and never answers, until shutdown drops it', async () => {
      const request = fetch(`${base}/hang`).then(
        response => `answered ${response.status}`,
        () => 'dropped',
      );
      await untilHanging(1);
      await targets.close();
      expect(await request).toBe('dropped');
    });

    it('answers 404 with the list of endpoints for an unknown path', async () => {
      const { status, body } = await get('/nope');
      expect(status).toBe(404);
      expect(body.error.message).toBe(
        'No demo target at /nope; try /healthy, /slow, /failing, /flapping, /hang, /{environment}/{system}/health, or / for the control page',
      );
    });

    it('serves the control page at /', async () => {
      const response = await fetch(`${base}/`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        'text/html; charset=utf-8',
      );
      expect(await response.text()).toContain('<h1>Vigil demo targets</h1>');
    });
  });

  describe('switchable targets', () => {
    it('are healthy by default and become known when probed', async () => {
      expect(await get('/production/payments/health')).toEqual({
        status: 200,
        body: {
          status: 'UP',
          environment: 'production',
          system: 'payments',
          mode: 'healthy',
        },
      });
      expect(await control()).toEqual({
        modes: ['healthy', 'degraded', 'failing', 'hang'],
        targets: [
          {
            environment: 'production',
            system: 'payments',
            mode: 'healthy',
            requests: 1,
            lastRequestAt: '2030-01-01T00:00:00.000Z',
          },
        ],
        hangingRequests: 0,
      });
    });

    it('fail with 503 DOWN once switched to failing, under the whole health path, in that environment only', async () => {
      expect(
        await put('/control/production/payments', '{"mode":"failing"}'),
      ).toEqual({
        status: 200,
        body: {
          environment: 'production',
          system: 'payments',
          mode: 'failing',
          requests: 0,
          lastRequestAt: null,
        },
      });
      expect(await get('/production/payments/health')).toEqual({
        status: 503,
        body: {
          status: 'DOWN',
          environment: 'production',
          system: 'payments',
          mode: 'failing',
        },
      });
      expect((await get('/production/payments/health/db')).status).toBe(503);
      expect((await get('/staging/payments/health')).status).toBe(200);
      expect((await get('/production/checkout/health')).status).toBe(200);
    });

    // A lower bound only: a busy machine makes the answer later, never earlier.
    it('answer 200 UP after 800 ms when degraded', async () => {
      await put('/control/staging/identity', '{"mode":"degraded"}');
      const { result, elapsedMs } = await timed(() =>
        get('/staging/identity/health'),
      );
      expect(result).toEqual({
        status: 200,
        body: {
          status: 'UP',
          environment: 'staging',
          system: 'identity',
          mode: 'degraded',
        },
      });
      expect(elapsedMs).toBeGreaterThanOrEqual(790);
    });

    it('never answer when switched to hang', async () => {
      await put('/control/default/analytics', '{"mode":"hang"}');
      const request = fetch(`${base}/default/analytics/health`).then(
        response => `answered ${response.status}`,
        () => 'dropped',
      );
      await untilHanging(1);
      await targets.close();
      expect(await request).toBe('dropped');
    });

    it('log one line per mode change, none when the mode stays', async () => {
      await put('/control/production/payments', '{"mode":"failing"}');
      await put('/control/production/payments', '{"mode":"failing"}');
      await put('/control/canary/checkout', '{"mode":"hang"}');
      await put('/control/production/payments', '{"mode":"healthy"}');
      expect(logLines).toEqual([
        'production/payments: healthy -> failing',
        'canary/checkout: healthy -> hang',
        'production/payments: failing -> healthy',
      ]);
    });

    it('go back to healthy on DELETE /control, which keeps them listed', async () => {
      await put('/control/production/payments', '{"mode":"failing"}');
      await put('/control/staging/payments', '{"mode":"degraded"}');
      await get('/production/identity/health');
      logLines.length = 0;

      const response = await fetch(`${base}/control`, { method: 'DELETE' });
      expect(response.status).toBe(200);
      const state: ControlState = await response.json();
      expect(
        state.targets.map(t => `${t.environment}/${t.system}=${t.mode}`),
      ).toEqual([
        'production/identity=healthy',
        'production/payments=healthy',
        'staging/payments=healthy',
      ]);
      expect(logLines).toEqual([
        'production/payments: failing -> healthy (reset)',
        'staging/payments: degraded -> healthy (reset)',
      ]);
      expect((await get('/production/payments/health')).status).toBe(200);
    });
  });

  describe('control API input', () => {
    it.each([
      [
        'a body that is not JSON',
        '/control/production/payments',
        'failing',
        /^Request body is not valid JSON/,
      ],
      [
        'an unknown mode',
        '/control/production/payments',
        '{"mode":"broken"}',
        /^Unknown mode "broken"; expected a JSON object like \{"mode":"failing"\}, with mode one of healthy, degraded, failing, hang$/,
      ],
      [
        'an invalid environment name',
        '/control/prod!/payments',
        '{"mode":"failing"}',
        /^Invalid environment name "prod!"/,
      ],
      [
        'a path without a system',
        '/control/production',
        '{"mode":"failing"}',
        /^Expected \/control\/\{environment\}\/\{system\}, got \/control\/production$/,
      ],
    ])('answers 400 InputError for %s', async (_, path, body, message) => {
      const response = await put(path, body);
      expect(response.status).toBe(400);
      expect(response.body.error.name).toBe('InputError');
      expect(response.body.error.message).toMatch(message);
      expect((await control()).targets).toEqual([]);
      expect(logLines).toEqual([]);
    });

    it('answers 413 for a body over 4096 bytes', async () => {
      const response = await put(
        '/control/production/payments',
        JSON.stringify({ mode: 'failing', padding: 'x'.repeat(5000) }),
      );
      expect(response.status).toBe(413);
      expect((await get('/production/payments/health')).status).toBe(200);
    });

    it('answers 405 with the allowed methods for a wrong method', async () => {
      const onList = await fetch(`${base}/control`, { method: 'POST' });
      expect(onList.status).toBe(405);
      expect(onList.headers.get('allow')).toBe('GET, DELETE');
      const onTarget = await fetch(`${base}/control/production/payments`);
      expect(onTarget.status).toBe(405);
      expect(onTarget.headers.get('allow')).toBe('PUT');
    });
  });

  describe('TCP', () => {
    function converse(input: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket = connect(targets.tcpPort, '127.0.0.1');
        let received = '';
        socket.setEncoding('latin1');
        socket.on('data', chunk => {
          received += chunk;
        });
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
        socket.end(input, 'latin1');
      });
    }

    it('answers a PING line with PONG', async () => {
      expect(await converse('PING\n')).toBe('PONG\n');
    });

    it('echoes other lines, and an unfinished line when the client finishes', async () => {
      expect(await converse('hello\r\nPING\r\nbye')).toBe(
        'hello\r\nPONG\r\nbye',
      );
    });

    it('echoes bytes unchanged', async () => {
      const bytes = String.fromCharCode(0, 200, 255, 10);
      expect(await converse(bytes)).toBe(bytes);
    });
  });
});
