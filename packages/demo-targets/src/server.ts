/*
 * The demo target server: what the demo catalog's health checks probe.
 *
 * Node runs this file directly (type stripping), so it uses only erasable
 * TypeScript and Node built-ins.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

/** @public */
export const DEFAULT_HTTP_PORT = 7010;
/** @public */
export const DEFAULT_TCP_PORT = 7011;
/** @public */
export const DEFAULT_HOST = '127.0.0.1';

const DEFAULT_SLOW_MS = 1500;
const MAX_SLOW_MS = 60_000;
const DEFAULT_FLAP_PERIOD_SECONDS = 30;
const MAX_FLAP_PERIOD_SECONDS = 3600;
/** Above the demo checks' 500 ms budget, below their 2 s timeout. */
const DEGRADED_DELAY_MS = 800;
const MAX_CONTROL_BODY_BYTES = 4096;
/** A TCP client that never sends a newline still gets its bytes back. */
const MAX_TCP_LINE_BYTES = 64 * 1024;
/** Backstage's entity name rule, so environment and system names fit. */
const NAME_PATTERN = /^[A-Za-z0-9]([-_.]?[A-Za-z0-9])*$/;
const MAX_NAME_LENGTH = 63;

/**
 * How a switchable target answers.
 *
 * @public
 */
export type TargetMode = 'healthy' | 'degraded' | 'failing' | 'hang';

/** @public */
export const TARGET_MODES: readonly TargetMode[] = [
  'healthy',
  'degraded',
  'failing',
  'hang',
];

/**
 * One switchable target: a system in an environment.
 *
 * @public
 */
export interface TargetKey {
  environment: string;
  system: string;
}

/** @public */
export interface TargetState extends TargetKey {
  mode: TargetMode;
  /** Probe requests received since start. */
  requests: number;
  /** ISO time of the last probe request, or null if only its mode was set. */
  lastRequestAt: string | null;
}

/**
 * What `GET /control` returns.
 *
 * @public
 */
export interface ControlState {
  modes: readonly TargetMode[];
  targets: TargetState[];
  /** Requests held open right now by `/hang` or a target in mode `hang`. */
  hangingRequests: number;
}

/**
 * The outcome of parsing untrusted input: a value or a message for the user.
 *
 * @public
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** @public */
export interface DemoTargetsOptions {
  /** 0 picks a free port. Default 7010. */
  httpPort?: number;
  /** 0 picks a free port. Default 7011. */
  tcpPort?: number;
  /** Default 127.0.0.1: the demo targets are for loopback only. */
  host?: string;
  /** Receives one line per mode change. Default: stdout. */
  log?: (line: string) => void;
  /** Milliseconds since the epoch; tests pin it to drive `/flapping`. */
  now?: () => number;
}

/** @public */
export interface DemoTargets {
  httpPort: number;
  tcpPort: number;
  /** Stops both servers and drops open connections, hanging ones included. */
  close(): Promise<void>;
}

/**
 * Whether a string is usable as an environment or system name.
 *
 * @internal
 */
export function isValidName(name: string): boolean {
  return name.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(name);
}

/**
 * Recognises a switchable target path, `/{environment}/{system}/health` or
 * anything under it, and returns the target it names.
 *
 * @internal
 */
export function parseSwitchableTargetPath(
  pathname: string,
): TargetKey | undefined {
  const [environment, system, health] = pathname.split('/').slice(1);
  if (
    health !== 'health' ||
    !isValidName(environment) ||
    !isValidName(system)
  ) {
    return undefined;
  }
  return { environment, system };
}

/**
 * Parses the path of `PUT /control/{environment}/{system}`.
 *
 * @internal
 */
export function parseControlTargetPath(pathname: string): Parsed<TargetKey> {
  const segments = pathname.split('/').slice(2);
  if (segments.length !== 2 || segments.some(segment => segment === '')) {
    return {
      ok: false,
      message: `Expected /control/{environment}/{system}, got ${pathname}`,
    };
  }
  const [environment, system] = segments;
  for (const [what, name] of [
    ['environment', environment],
    ['system', system],
  ]) {
    if (!isValidName(name)) {
      return {
        ok: false,
        message: `Invalid ${what} name "${name}": use letters, digits and single "-", "_" or "." between them, at most ${MAX_NAME_LENGTH} characters`,
      };
    }
  }
  return { ok: true, value: { environment, system } };
}

/**
 * Parses the body of `PUT /control/{environment}/{system}`:
 * `{ "mode": "failing" }`.
 *
 * @internal
 */
export function parseModeRequestBody(body: string): Parsed<TargetMode> {
  const expected = `expected a JSON object like {"mode":"failing"}, with mode one of ${TARGET_MODES.join(
    ', ',
  )}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return {
      ok: false,
      message: `Request body is not valid JSON (${
        (error as Error).message
      }); ${expected}`,
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: `Request body is not an object; ${expected}` };
  }
  const mode = (parsed as { mode?: unknown }).mode;
  if (mode === undefined) {
    return { ok: false, message: `Request body has no "mode"; ${expected}` };
  }
  if (!TARGET_MODES.includes(mode as TargetMode)) {
    return {
      ok: false,
      message: `Unknown mode ${JSON.stringify(mode)}; ${expected}`,
    };
  }
  return { ok: true, value: mode as TargetMode };
}

/**
 * Parses an optional whole-number query parameter within bounds.
 *
 * @internal
 */
export function parseIntegerParam(
  raw: string | null,
  spec: { name: string; defaultValue: number; min: number; max: number },
): Parsed<number> {
  if (raw === null || raw === '') {
    return { ok: true, value: spec.defaultValue };
  }
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < spec.min || value > spec.max) {
    return {
      ok: false,
      message: `Query parameter "${spec.name}" must be a whole number from ${spec.min} to ${spec.max}, got "${raw}"`,
    };
  }
  return { ok: true, value };
}

/**
 * Where `/flapping` is in its cycle: healthy for one period, failing for the
 * next, on a grid anchored at the epoch so every caller sees the same phase.
 *
 * @internal
 */
export function flappingPhase(
  nowMs: number,
  periodSeconds: number,
): { healthy: boolean; secondsUntilChange: number } {
  const periodMs = periodSeconds * 1000;
  const periodIndex = Math.floor(nowMs / periodMs);
  const msUntilChange = (periodIndex + 1) * periodMs - nowMs;
  return {
    healthy: periodIndex % 2 === 0,
    secondsUntilChange: Math.ceil(msUntilChange / 1000),
  };
}

/**
 * Answers the complete lines of what a TCP client sent: `PING` gets `PONG`,
 * any other line is echoed. An unfinished line is returned as `rest` to wait
 * for the remainder. Line endings (`\n` or `\r\n`) are kept as received.
 *
 * @internal
 */
export function answerTcpLines(received: string): {
  reply: string;
  rest: string;
} {
  const lines = received.split('\n');
  const rest = lines.pop() ?? '';
  const reply = lines
    .map(line => {
      const ending = line.endsWith('\r') ? '\r\n' : '\n';
      const text = ending === '\r\n' ? line.slice(0, -1) : line;
      return (text === 'PING' ? 'PONG' : text) + ending;
    })
    .join('');
  return { reply, rest };
}

/**
 * Reads the listen settings from the environment
 * (`DEMO_TARGETS_HTTP_PORT`, `DEMO_TARGETS_TCP_PORT`, `DEMO_TARGETS_HOST`).
 *
 * @internal
 */
export function readDemoTargetsSettings(
  env: Record<string, string | undefined>,
): Parsed<{ httpPort: number; tcpPort: number; host: string }> {
  const settings = { httpPort: 0, tcpPort: 0, host: DEFAULT_HOST };
  for (const [variable, key, fallback] of [
    ['DEMO_TARGETS_HTTP_PORT', 'httpPort', DEFAULT_HTTP_PORT],
    ['DEMO_TARGETS_TCP_PORT', 'tcpPort', DEFAULT_TCP_PORT],
  ] as const) {
    const port = parseIntegerParam(env[variable] ?? null, {
      name: variable,
      defaultValue: fallback,
      min: 0,
      max: 65535,
    });
    if (!port.ok) {
      return {
        ok: false,
        message: `${variable} must be a port number from 0 to 65535, got "${env[variable]}"`,
      };
    }
    settings[key] = port.value;
  }
  if (env.DEMO_TARGETS_HOST) {
    settings.host = env.DEMO_TARGETS_HOST;
  }
  return { ok: true, value: settings };
}

/** Modes of the targets seen in requests or set through the control API. */
class TargetModeRegistry {
  readonly #targets = new Map<string, TargetState>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  recordRequest(key: TargetKey): TargetMode {
    const target = this.#get(key);
    target.requests += 1;
    target.lastRequestAt = new Date(this.#now()).toISOString();
    return target.mode;
  }

  /** Returns the previous mode. */
  setMode(key: TargetKey, mode: TargetMode): TargetMode {
    const target = this.#get(key);
    const previous = target.mode;
    target.mode = mode;
    return previous;
  }

  /** Sets every target back to healthy; returns those that changed. */
  resetAll(): Array<{ target: TargetState; previous: TargetMode }> {
    const changed = [];
    for (const target of this.#targets.values()) {
      if (target.mode !== 'healthy') {
        changed.push({
          target: { ...target, mode: 'healthy' as const },
          previous: target.mode,
        });
        target.mode = 'healthy';
      }
    }
    return changed;
  }

  get(key: TargetKey): TargetState {
    return { ...this.#get(key) };
  }

  list(): TargetState[] {
    return [...this.#targets.values()]
      .map(target => ({ ...target }))
      .sort(
        (a, b) =>
          a.system.localeCompare(b.system) ||
          a.environment.localeCompare(b.environment),
      );
  }

  #get(key: TargetKey): TargetState {
    const id = `${key.environment}/${key.system}`;
    let target = this.#targets.get(id);
    if (!target) {
      target = { ...key, mode: 'healthy', requests: 0, lastRequestAt: null };
      this.#targets.set(id, target);
    }
    return target;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(`${JSON.stringify(body)}\n`);
}

/** The error body shape of Backstage's own APIs. */
function sendError(
  res: ServerResponse,
  status: number,
  name: string,
  message: string,
): void {
  sendJson(res, status, { error: { name, message } });
}

function sendMethodNotAllowed(res: ServerResponse, allowed: string[]): void {
  res.setHeader('allow', allowed.join(', '));
  sendError(
    res,
    405,
    'MethodNotAllowedError',
    `Method not allowed here; use ${allowed.join(' or ')}`,
  );
}

/** Resolves undefined when the body is larger than the limit. */
async function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) {
      chunks.push(chunk as Buffer);
    }
  }
  return size > limit ? undefined : Buffer.concat(chunks).toString('utf8');
}

function listen(
  server: Server,
  port: number,
  host: string,
  what: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === 'EADDRINUSE'
          ? ` (address in use; set DEMO_TARGETS_${what}_PORT to another port)`
          : '';
      reject(
        new Error(
          `Cannot listen for ${what} on ${host}:${port}: ${error.message}${hint}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise(resolve => {
    server.close(() => resolve());
  });
}

/**
 * The control page: lists targets and switches their modes through the
 * control API. Names are inserted with textContent, never as HTML.
 */
const CONTROL_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Vigil demo targets</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
  table { border-collapse: collapse; margin: 1rem 0; }
  th, td { text-align: left; padding: 0.35rem 0.8rem; border-bottom: 1px solid #ddd; }
  button { margin-right: 0.25rem; cursor: pointer; }
  button[disabled] { cursor: default; font-weight: bold; }
  .healthy { color: #1b7f3b; } .degraded { color: #b26a00; }
  .failing { color: #c62828; } .hang { color: #6a1b9a; }
  .hint { color: #666; } code { background: #f3f3f3; padding: 0 0.2rem; }
</style>
</head>
<body>
<h1>Vigil demo targets</h1>
<p class="hint">Switch a target and watch the portal react within a few probe intervals.
Targets appear here once a probe hits <code>/{environment}/{system}/health</code> or their mode is set.</p>
<table>
  <thead><tr><th>System</th><th>Environment</th><th>Mode</th><th>Requests</th><th>Last request</th><th>Switch to</th></tr></thead>
  <tbody id="targets"><tr><td colspan="6" class="hint">Loading...</td></tr></tbody>
</table>
<p>
  <button id="reset">Reset all to healthy</button>
  <span class="hint" id="hanging"></span>
</p>
<form id="add">
  Set a target: <input name="system" placeholder="system" required>
  <input name="environment" placeholder="environment" required>
  <select name="mode"></select>
  <button type="submit">Set</button>
  <span class="hint" id="error"></span>
</form>
<h2>Fixed endpoints</h2>
<ul>
  <li><a href="/healthy">/healthy</a>: 200 <code>{"status":"UP"}</code></li>
  <li><a href="/slow">/slow?ms=1500</a>: 200 after <code>ms</code> milliseconds</li>
  <li><a href="/failing">/failing</a>: 503 <code>{"status":"DOWN"}</code></li>
  <li><a href="/flapping">/flapping?period=30</a>: alternates 200 and 503 every <code>period</code> seconds</li>
  <li>/hang: accepts and never answers</li>
  <li>TCP echo on the TCP port: a line <code>PING</code> gets <code>PONG</code></li>
</ul>
<script>
  var modes = [];
  function cell(text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }
  function showError(message) {
    document.getElementById('error').textContent = message || '';
  }
  function setMode(environment, system, mode) {
    return fetch('/control/' + encodeURIComponent(environment) + '/' + encodeURIComponent(system), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: mode })
    }).then(function (response) {
      return response.json().then(function (body) {
        showError(response.ok ? '' : body.error.message);
      });
    }).then(refresh);
  }
  function render(state) {
    if (modes.length === 0) {
      modes = state.modes;
      var select = document.querySelector('#add select');
      modes.forEach(function (mode) {
        var option = document.createElement('option');
        option.value = mode;
        option.textContent = mode;
        select.appendChild(option);
      });
    }
    var body = document.getElementById('targets');
    body.textContent = '';
    if (state.targets.length === 0) {
      var row = document.createElement('tr');
      var empty = cell('No targets yet: start the portal, or set one below.', 'hint');
      empty.colSpan = 6;
      row.appendChild(empty);
      body.appendChild(row);
    }
    state.targets.forEach(function (target) {
      var row = document.createElement('tr');
      row.appendChild(cell(target.system));
      row.appendChild(cell(target.environment));
      row.appendChild(cell(target.mode, target.mode));
      row.appendChild(cell(String(target.requests)));
      row.appendChild(cell(target.lastRequestAt ? new Date(target.lastRequestAt).toLocaleTimeString() : '-'));
      var buttons = document.createElement('td');
      modes.forEach(function (mode) {
        var button = document.createElement('button');
        button.textContent = mode;
        button.className = mode;
        button.disabled = mode === target.mode;
        button.onclick = function () { setMode(target.environment, target.system, mode); };
        buttons.appendChild(button);
      });
      row.appendChild(buttons);
      body.appendChild(row);
    });
    document.getElementById('hanging').textContent =
      state.hangingRequests + ' request(s) held open by hang';
  }
  function refresh() {
    return fetch('/control').then(function (response) { return response.json(); }).then(render)
      .catch(function (error) { showError('Cannot reach the demo targets: ' + error.message); });
  }
  document.getElementById('reset').onclick = function () {
    fetch('/control', { method: 'DELETE' }).then(refresh);
  };
  document.getElementById('add').onsubmit = function (event) {
    event.preventDefault();
    var form = event.target;
    setMode(form.environment.value.trim(), form.system.value.trim(), form.mode.value);
  };
  refresh();
  setInterval(refresh, 2000);
</script>
</body>
</html>
`;

/**
 * Starts the demo targets: an HTTP server with fixed and switchable probe
 * endpoints plus a control API and page, and a TCP echo server.
 *
 * @public
 */
export async function startDemoTargets(
  options: DemoTargetsOptions = {},
): Promise<DemoTargets> {
  const host = options.host ?? DEFAULT_HOST;
  const log =
    options.log ?? ((line: string) => console.log(`demo-targets: ${line}`));
  const now = options.now ?? Date.now;
  const registry = new TargetModeRegistry(now);
  const timers = new Set<NodeJS.Timeout>();
  const hanging = new Set<ServerResponse>();

  const later = (res: ServerResponse, ms: number, answer: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, ms);
    timers.add(timer);
    res.once('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const hang = (res: ServerResponse) => {
    hanging.add(res);
    res.once('close', () => hanging.delete(res));
  };

  const controlState = (): ControlState => ({
    modes: TARGET_MODES,
    targets: registry.list(),
    hangingRequests: hanging.size,
  });

  const answerSwitchable = (res: ServerResponse, key: TargetKey) => {
    const mode = registry.recordRequest(key);
    const body = (status: 'UP' | 'DOWN') => ({ status, ...key, mode });
    switch (mode) {
      case 'healthy':
        sendJson(res, 200, body('UP'));
        return;
      case 'degraded':
        later(res, DEGRADED_DELAY_MS, () => sendJson(res, 200, body('UP')));
        return;
      case 'failing':
        sendJson(res, 503, body('DOWN'));
        return;
      case 'hang':
        hang(res);
        return;
      default:
        throw new Error(`Unhandled mode ${mode satisfies never}`);
    }
  };

  const handleControl = async (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
  ) => {
    if (pathname === '/control' || pathname === '/control/') {
      if (req.method === 'GET' || req.method === 'HEAD') {
        sendJson(res, 200, controlState());
      } else if (req.method === 'DELETE') {
        for (const { target, previous } of registry.resetAll()) {
          log(
            `${target.environment}/${target.system}: ${previous} -> healthy (reset)`,
          );
        }
        sendJson(res, 200, controlState());
      } else {
        sendMethodNotAllowed(res, ['GET', 'DELETE']);
      }
      return;
    }
    if (req.method !== 'PUT') {
      sendMethodNotAllowed(res, ['PUT']);
      return;
    }
    const key = parseControlTargetPath(pathname);
    if (!key.ok) {
      sendError(res, 400, 'InputError', key.message);
      return;
    }
    const body = await readBody(req, MAX_CONTROL_BODY_BYTES);
    if (body === undefined) {
      sendError(
        res,
        413,
        'PayloadTooLargeError',
        `Request body is larger than ${MAX_CONTROL_BODY_BYTES} bytes`,
      );
      return;
    }
    const mode = parseModeRequestBody(body);
    if (!mode.ok) {
      sendError(res, 400, 'InputError', mode.message);
      return;
    }
    const previous = registry.setMode(key.value, mode.value);
    if (previous !== mode.value) {
      log(
        `${key.value.environment}/${key.value.system}: ${previous} -> ${mode.value}`,
      );
    }
    sendJson(res, 200, registry.get(key.value));
  };

  const handleRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    const query = new URLSearchParams(
      queryStart === -1 ? '' : url.slice(queryStart + 1),
    );

    if (pathname === '/control' || pathname.startsWith('/control/')) {
      await handleControl(req, res, pathname);
      return;
    }
    // Probes may send a body; nothing below reads it.
    req.resume();

    switch (pathname) {
      case '/':
        if (req.method === 'GET' || req.method === 'HEAD') {
          res.writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
          });
          res.end(CONTROL_PAGE_HTML);
        } else {
          sendMethodNotAllowed(res, ['GET']);
        }
        return;
      case '/healthy':
        sendJson(res, 200, { status: 'UP' });
        return;
      case '/failing':
        sendJson(res, 503, { status: 'DOWN' });
        return;
      case '/hang':
        hang(res);
        return;
      case '/slow': {
        const ms = parseIntegerParam(query.get('ms'), {
          name: 'ms',
          defaultValue: DEFAULT_SLOW_MS,
          min: 0,
          max: MAX_SLOW_MS,
        });
        if (!ms.ok) {
          sendError(res, 400, 'InputError', ms.message);
          return;
        }
        later(res, ms.value, () =>
          sendJson(res, 200, { status: 'UP', delayMs: ms.value }),
        );
        return;
      }
      case '/flapping': {
        const period = parseIntegerParam(query.get('period'), {
          name: 'period',
          defaultValue: DEFAULT_FLAP_PERIOD_SECONDS,
          min: 1,
          max: MAX_FLAP_PERIOD_SECONDS,
        });
        if (!period.ok) {
          sendError(res, 400, 'InputError', period.message);
          return;
        }
        const phase = flappingPhase(now(), period.value);
        sendJson(res, phase.healthy ? 200 : 503, {
          status: phase.healthy ? 'UP' : 'DOWN',
          secondsUntilChange: phase.secondsUntilChange,
        });
        return;
      }
      default:
    }

    const target = parseSwitchableTargetPath(pathname);
    if (target) {
      answerSwitchable(res, target);
      return;
    }
    sendError(
      res,
      404,
      'NotFoundError',
      `No demo target at ${pathname}; try /healthy, /slow, /failing, /flapping, /hang, /{environment}/{system}/health, or / for the control page`,
    );
  };

  const httpServer = createHttpServer((req, res) => {
    handleRequest(req, res).catch(error => {
      if (!res.headersSent) {
        sendError(res, 500, 'Error', String(error));
      } else {
        res.destroy();
      }
    });
  });

  const tcpSockets = new Set<Socket>();
  const tcpServer = createTcpServer({ allowHalfOpen: true }, socket => {
    tcpSockets.add(socket);
    // latin1 maps bytes to characters one to one, so the echo is exact.
    socket.setEncoding('latin1');
    let pending = '';
    socket.on('data', (chunk: string) => {
      const { reply, rest } = answerTcpLines(pending + chunk);
      pending = rest;
      let out = reply;
      if (pending.length > MAX_TCP_LINE_BYTES) {
        out += pending;
        pending = '';
      }
      if (out) {
        socket.write(out, 'latin1');
      }
    });
    socket.on('end', () => {
      socket.end(pending, 'latin1');
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => tcpSockets.delete(socket));
  });

  const httpPort = await listen(
    httpServer,
    options.httpPort ?? DEFAULT_HTTP_PORT,
    host,
    'HTTP',
  );
  let tcpPort: number;
  try {
    tcpPort = await listen(
      tcpServer,
      options.tcpPort ?? DEFAULT_TCP_PORT,
      host,
      'TCP',
    );
  } catch (error) {
    await closeServer(httpServer);
    throw error;
  }

  let closing: Promise<void> | undefined;
  const shutDown = async () => {
    for (const timer of timers) {
      clearTimeout(timer);
    }
    timers.clear();
    const closed = Promise.all([
      closeServer(httpServer),
      closeServer(tcpServer),
    ]);
    httpServer.closeAllConnections();
    for (const socket of tcpSockets) {
      socket.destroy();
    }
    await closed;
  };

  return {
    httpPort,
    tcpPort,
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}
