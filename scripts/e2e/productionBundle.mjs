#!/usr/bin/env node
// The production build, as packages/backend/Dockerfile makes and runs it,
// without a container: `yarn build:backend`, the skeleton and bundle
// tarballs unpacked into test-results/production-bundle/, a production
// install (`yarn workspaces focus --all --production`), and
// `node packages/backend --config app-config.yaml --config
// app-config.production.yaml` on PostgreSQL. Checks that the bundle serves
// the built app and that the Health API answers with the demo catalog.
//
// Beside it runs the README's PostgreSQL command (`yarn dev` with
// app-config.postgres.yaml), checked for the demo catalog too, and headless
// Chromium loads the Health overview page and a System's Health tab from
// each in turn (pageLoads.mjs). Prints the medians side by side and
// `production bundle: N passed, N failed`.
//
// Both portals listen on ports of their own (APP_CONFIG_* overrides) and use
// databases of their own (a prefix, dropped before and after), so a demo
// running on the usual ports is left alone.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  LOADS_PER_PAGE,
  demoPages,
  disableCache,
  formatPageLoads,
  loadOnce,
  medians,
  signIn,
} from './pageLoads.mjs';
import { getJson, guestToken } from './performance.mjs';
import { isUp, launchChromium, stopProcessGroup } from './processes.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS = join(ROOT, 'test-results');
/** Kept between runs: its node_modules make the next install quick. */
const BUNDLE_DIR = join(RESULTS, 'production-bundle');
const DIST = join(ROOT, 'packages', 'backend', 'dist');
const POSTGRES_URL = new URL(
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
    'postgresql://postgres@127.0.0.1:5432',
);
const STARTUP_LIMIT_MS = 300_000;
/** The demo catalog's systems, which both portals must list. */
const DEMO_SYSTEMS = [
  'analytics',
  'checkout',
  'identity',
  'messaging',
  'payments',
  'storefront',
];
const production = {
  name: 'production bundle',
  frontend: 'http://localhost:7207',
  backend: 'http://localhost:7207',
  databasePrefix: 'vigil_e2e_bundle_',
  log: join(RESULTS, 'production-bundle.log'),
  screenshot: join(RESULTS, 'e2e', 'production-bundle.png'),
};
const development = {
  name: 'yarn dev',
  frontend: 'http://localhost:3208',
  backend: 'http://localhost:7208',
  databasePrefix: 'vigil_e2e_dev_',
  log: join(RESULTS, 'production-bundle-dev.log'),
  screenshot: join(RESULTS, 'e2e', 'production-bundle-dev.png'),
};

function log(message) {
  process.stderr.write(`[production] ${message}\n`);
}

/** The pinned Yarn that scripts/vigil.mjs resolved, or the one on PATH. */
const YARN = process.env.VIGIL_YARN
  ? JSON.parse(process.env.VIGIL_YARN)
  : ['yarn'];
const ENV = {
  ...process.env,
  // better-sqlite3 builds against the running Node's headers where they are
  // (the Node that scripts/vigil.mjs provisions has them), not downloaded.
  ...(!process.env.npm_config_nodedir &&
  existsSync(join(dirname(process.execPath), '..', 'include', 'node'))
    ? { npm_config_nodedir: resolve(dirname(process.execPath), '..') }
    : {}),
};

/** Build and install output: long, and only of interest when they fail. */
const BUILD_LOG = join(RESULTS, 'production-bundle-build.log');

function mustYarn(args, options = {}) {
  const [cmd, ...pre] = YARN;
  const out = openSync(BUILD_LOG, 'a');
  const result = spawnSync(cmd, [...pre, ...args], {
    cwd: ROOT,
    stdio: ['ignore', out, out],
    env: ENV,
    ...options,
  });
  closeSync(out);
  if (result.status !== 0) {
    const tail = readFileSync(BUILD_LOG, 'utf8').split('\n').slice(-40);
    throw new Error(
      `yarn ${args.join(' ')} exited with ${
        result.status
      }; the end of ${BUILD_LOG}:\n${tail.join('\n')}`,
    );
  }
}

function mustRun(cmd, args, cwd) {
  const result = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status}`);
  }
}

/** The backend bundle, unpacked and installed as the Dockerfile does. */
function prepareBundle() {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // Everything from the last run goes but the installed dependencies and
  // Yarn's record of them (.yarn/install-state.gz).
  for (const entry of readdirSync(BUNDLE_DIR)) {
    if (entry !== 'node_modules' && entry !== '.yarn') {
      rmSync(join(BUNDLE_DIR, entry), { recursive: true, force: true });
    }
  }
  for (const file of [
    '.yarnrc.yml',
    'backstage.json',
    'yarn.lock',
    'package.json',
  ]) {
    cpSync(join(ROOT, file), join(BUNDLE_DIR, file));
  }
  mustRun('tar', ['xzf', join(DIST, 'skeleton.tar.gz')], BUNDLE_DIR);
  mustYarn(['workspaces', 'focus', '--all', '--production'], {
    cwd: BUNDLE_DIR,
    env: { ...ENV, NODE_ENV: 'production' },
  });
  cpSync(join(ROOT, 'demo'), join(BUNDLE_DIR, 'demo'), { recursive: true });
  mustRun('tar', ['xzf', join(DIST, 'bundle.tar.gz')], BUNDLE_DIR);
  for (const file of readdirSync(ROOT)) {
    if (/^app-config.*\.yaml$/.test(file)) {
      cpSync(join(ROOT, file), join(BUNDLE_DIR, file));
    }
  }
}

async function withDatabase(fn) {
  const client = new pg.Client({
    connectionString: POSTGRES_URL.href,
    database: 'postgres',
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Drops the databases a portal made, so it starts with an empty catalog. */
async function dropDatabases(prefix) {
  await withDatabase(async client => {
    const { rows } = await client.query(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${prefix}%`],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  });
}

function portalEnv(portal) {
  const backendPort = new URL(portal.backend).port;
  return {
    ...ENV,
    // As the image sets it; `yarn dev` runs as a developer starts it.
    ...(portal === production ? { NODE_ENV: 'production' } : {}),
    BROWSER: 'none',
    POSTGRES_HOST: POSTGRES_URL.hostname,
    POSTGRES_PORT: POSTGRES_URL.port || '5432',
    POSTGRES_USER: decodeURIComponent(POSTGRES_URL.username),
    POSTGRES_PASSWORD: decodeURIComponent(POSTGRES_URL.password),
    APP_CONFIG_app_baseUrl: portal.frontend,
    APP_CONFIG_backend_baseUrl: portal.backend,
    APP_CONFIG_backend_cors_origin: portal.frontend,
    APP_CONFIG_backend_database_prefix: portal.databasePrefix,
    ...(portal === production
      ? {
          APP_CONFIG_backend_listen: `:${backendPort}`,
          // The production config leaves the demo's guest sign-in to
          // development; the test signs in as the guest all the same.
          APP_CONFIG_auth_providers_guest_dangerouslyAllowOutsideDevelopment:
            'true',
        }
      : { APP_CONFIG_backend_listen_port: backendPort }),
  };
}

/** Starts a portal in a process group of its own, its output in its log. */
function start(portal, cmd, args, cwd) {
  const out = createWriteStream(portal.log);
  const child = spawn(cmd, args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: portalEnv(portal),
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  portal.process = child;
  return child;
}

async function waitUntilUp(portal) {
  const started = Date.now();
  const urls = [portal.frontend, `${portal.backend}/api/healthcheck/health`];
  while (Date.now() - started < STARTUP_LIMIT_MS) {
    if (portal.process.exitCode !== null) {
      throw new Error(
        `${portal.name} exited with code ${portal.process.exitCode} (log: ${portal.log})`,
      );
    }
    if ((await Promise.all(urls.map(isUp))).every(Boolean)) {
      return Date.now() - started;
    }
    await new Promise(r => setTimeout(r, 1000));
  }
  throw new Error(
    `${portal.name} did not answer within ${STARTUP_LIMIT_MS / 1000} s (log: ${
      portal.log
    })`,
  );
}

/** The portal serves the built app: its page and the scripts it names. */
async function checkServesApp(portal) {
  const response = await fetch(portal.frontend);
  const html = await response.text();
  const scripts = [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)].map(
    match => match[1],
  );
  if (!/<div id="root">/.test(html) || scripts.length === 0) {
    throw new Error(`${portal.frontend} does not serve the app's page`);
  }
  for (const src of scripts) {
    const script = await fetch(new URL(src, portal.frontend));
    if (!script.ok || !/javascript/.test(script.headers.get('content-type'))) {
      throw new Error(`${src} answered ${script.status}`);
    }
  }
  log(`${portal.name} serves the app (${scripts.length} scripts)`);
}

/** The Health API lists the demo systems: the catalog file was found. */
async function checkDemoCatalog(portal, token) {
  const started = Date.now();
  for (;;) {
    const body = await getJson(
      portal.backend,
      token,
      '/api/healthcheck/v1/systems?limit=100&sort=name',
    );
    const names = (body?.items ?? []).map(system => system.name).sort();
    if (DEMO_SYSTEMS.every(name => names.includes(name))) {
      log(
        `${portal.name}: the Health API lists the ${
          names.length
        } demo systems ${((Date.now() - started) / 1000).toFixed(
          1,
        )} s after it answered`,
      );
      return;
    }
    if (Date.now() - started > 120_000) {
      throw new Error(
        `${portal.name}: the Health API lists [${names.join(
          ', ',
        )}], not the demo systems (log: ${portal.log})`,
      );
    }
    await new Promise(r => setTimeout(r, 2000));
  }
}

/** The catalog warned of nothing it could not read. */
function checkNoCatalogWarnings(portal) {
  const warnings = readFileSync(portal.log, 'utf8')
    .split('\n')
    .filter(line => /does not exist|could not be read/.test(line));
  if (warnings.length > 0) {
    throw new Error(
      `${portal.name}: the catalog warned:\n${warnings.join('\n')}`,
    );
  }
}

/** Loads each page from each portal in turn, so both see the same machine. */
async function measure(browser, portals) {
  const contexts = [];
  for (const portal of portals) {
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
    });
    contexts.push(context);
    portal.page = await context.newPage();
    portal.page.setDefaultTimeout(60_000);
    await signIn(portal.page, portal.frontend);
    await disableCache(portal.page);
    portal.pages = await demoPages(portal.backend, portal.token);
    portal.loads = Object.fromEntries(portal.pages.map(p => [p.name, []]));
  }
  for (const portal of portals) {
    // Not counted: the first load after start warms the server.
    for (const target of portal.pages) {
      await loadOnce(portal.page, portal.frontend, target);
    }
  }
  for (let run = 0; run < LOADS_PER_PAGE; run++) {
    for (const portal of portals) {
      for (const target of portal.pages) {
        portal.loads[target.name].push(
          await loadOnce(portal.page, portal.frontend, target),
        );
      }
    }
  }
  for (const portal of portals) {
    portal.medians = Object.fromEntries(
      Object.entries(portal.loads).map(([name, loads]) => [
        name,
        medians(loads),
      ]),
    );
  }
  // What each portal showed last: the System's Health tab.
  for (const portal of portals) {
    await portal.page.screenshot({ path: portal.screenshot });
  }
  await Promise.all(contexts.map(context => context.close()));
  return portals[0].pages;
}

/** Checks passed so far, for the summary line. */
let passed = 0;

async function main() {
  mkdirSync(RESULTS, { recursive: true });
  rmSync(BUILD_LOG, { force: true });
  for (const portal of [production, development]) {
    for (const url of [portal.frontend, portal.backend]) {
      if (await isUp(url)) {
        throw new Error(`${url} already answers: stop what runs there first`);
      }
    }
    await dropDatabases(portal.databasePrefix);
  }
  let browser;
  try {
    // The dev server takes longest to start: it starts first and compiles
    // while the bundle is built.
    const [yarnCmd, ...yarnPre] = YARN;
    start(
      development,
      yarnCmd,
      [
        ...yarnPre,
        'dev',
        '--config',
        '../../app-config.yaml',
        '--config',
        '../../app-config.postgres.yaml',
      ],
      ROOT,
    );

    let started = Date.now();
    mustYarn(['tsc']);
    mustYarn(['build:backend']);
    const buildSeconds = (Date.now() - started) / 1000;
    started = Date.now();
    prepareBundle();
    const installSeconds = (Date.now() - started) / 1000;
    log(
      `built in ${buildSeconds.toFixed(
        1,
      )} s, unpacked and installed in ${installSeconds.toFixed(1)} s`,
    );

    start(
      production,
      process.execPath,
      [
        'packages/backend',
        '--config',
        'app-config.yaml',
        '--config',
        'app-config.production.yaml',
      ],
      BUNDLE_DIR,
    );
    for (const portal of [production, development]) {
      const upMs = await waitUntilUp(portal);
      log(`${portal.name} answers (${(upMs / 1000).toFixed(1)} s)`);
      portal.token = await guestToken(portal.backend);
    }

    await checkServesApp(production);
    passed++;
    for (const portal of [production, development]) {
      await checkDemoCatalog(portal, portal.token);
      checkNoCatalogWarnings(portal);
      passed++;
    }

    browser = await launchChromium();
    const portals = [development, production];
    const pages = await measure(browser, portals);
    passed++;
    process.stdout.write(
      `Full page loads, browser cache off, median of ${LOADS_PER_PAGE} (ms from navigation start; this machine):\n${formatPageLoads(
        pages,
        portals,
      )}\n`,
    );
  } finally {
    await browser?.close();
    await Promise.all(
      [production, development]
        .filter(portal => portal.process)
        .map(portal => stopProcessGroup(portal.process)),
    );
    for (const portal of [production, development]) {
      await dropDatabases(portal.databasePrefix).catch(error =>
        log(`could not drop ${portal.databasePrefix}* databases: ${error}`),
      );
    }
  }
}

main().then(
  () => {
    process.stdout.write(`production bundle: ${passed} passed, 0 failed\n`);
  },
  error => {
    log(`failed: ${error.stack ?? error}`);
    process.stdout.write(`production bundle: ${passed} passed, 1 failed\n`);
    process.exitCode = 1;
  },
);
