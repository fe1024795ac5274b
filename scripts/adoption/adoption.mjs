#!/usr/bin/env node
// The adoption test: Vigil installed from its packages into a fresh
// Backstage app, following only the plugins' READMEs.
//
// 1. Builds every publishable package and packs it as a release does
//    (`yarn pack`, which runs each package's prepack and postpack).
// 2. Generates an app with @backstage/create-app for Backstage 1.55 and
//    installs it, pinned to 1.55 (pinBackstageRelease.mjs). That app is
//    cached under the cache folder, keyed by a fingerprint of what makes it;
//    a warm run resets it to that state with git and keeps its node_modules.
// 3. Serves the tarballs from a private registry on 127.0.0.1 (registry.mjs)
//    and applies the steps marked in the READMEs (readmeSteps.mjs), as they
//    are written: .yarnrc.yml, `yarn add`, the backend's index.ts, the
//    catalog rules.
// 4. Installs, type-checks (`yarn tsc`) and starts the app (`yarn start`) with
//    an app-config.local.yaml of the test's own: other ports, loopback
//    probes allowed (the target is on 127.0.0.1), and a catalog file with a
//    System owned by a short ref, a Component and a HealthCheck of a target
//    the test serves.
// 5. In headless Chromium, sees the Health page and the System's Health tab
//    show the check healthy, then unhealthy once the target fails.
//
// Prints `adoption: N passed, N failed`; exits 1 on a failure. Screenshots
// and the app's output go to test-results/adoption/.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseDocument, stringify } from 'yaml';
import { guestToken } from '../e2e/performance.mjs';
import { isUp, launchChromium, stopProcessGroup } from '../e2e/processes.mjs';
import { pinBackstageRelease } from './pinBackstageRelease.mjs';
import { readmeSteps } from './readmeSteps.mjs';
import { startRegistry } from './registry.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(
  process.env.VIGIL_CACHE ?? join(homedir(), '.cache', 'vigil'),
  'adoption',
);
const RESULTS = join(ROOT, 'test-results', 'adoption');
/** Backstage 1.55's create-app (docs/ENVIRONMENT.md). */
const CREATE_APP = '@backstage/create-app@0.9.2';
/** The READMEs whose marked steps the test follows, in this order. */
const READMES = [
  'plugins/healthcheck-backend/README.md',
  'plugins/catalog-backend-module-healthcheck/README.md',
  'plugins/healthcheck/README.md',
];
/** What the READMEs write where the reader puts their registry's address. */
const REGISTRY_PLACEHOLDER = 'https://npm.example.internal';
/** Ports of the app, away from the demo portal's 3000 and 7007. */
const FRONTEND = 'http://localhost:3755';
const BACKEND = 'http://localhost:7755';
const STARTUP_LIMIT_MS = 420_000;
/**
 * How long one command of the test may take (generating the app, an install
 * of some 2,500 packages, tsc) before it is killed and the test fails, so a
 * stalled registry or a hung child fails the step instead of the whole CI
 * budget.
 */
const COMMAND_LIMIT_MS = 20 * 60_000;
const STATUS_LIMIT_MS = 120_000;
const SYSTEM = 'adoption-shop';

const started = Date.now();
const results = [];

function log(message) {
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stderr.write(`[adoption ${seconds}s] ${message}\n`);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: COMMAND_LIMIT_MS,
    killSignal: 'SIGKILL',
    ...options,
  });
  const command = [cmd, ...args].join(' ');
  if (result.error?.code === 'ETIMEDOUT') {
    throw new Error(
      `${command} did not finish within ${
        COMMAND_LIMIT_MS / 60_000
      } minutes and was killed`,
    );
  }
  if (result.status !== 0) {
    throw new Error(`${command} exited with ${result.status ?? result.error}`);
  }
}

/** Runs a named check; a failure ends the test, and what was left is not run. */
async function check(name, body) {
  const at = Date.now();
  try {
    const detail = await body();
    const seconds = ((Date.now() - at) / 1000).toFixed(1);
    results.push({ name, ok: true });
    log(`ok: ${name} (${seconds} s)${detail ? `: ${detail}` : ''}`);
  } catch (error) {
    results.push({ name, ok: false });
    log(`FAILED: ${name}: ${error?.stack ?? error}`);
    throw error;
  }
}

// ---------------------------------------------------------------- packages

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Builds (unless the test command just did) and packs each package. */
function packPackages(yarn) {
  const out = join(RESULTS, 'packages');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  if (!process.env.VIGIL_ADOPTION_BUILT) {
    run(yarn[0], [...yarn.slice(1), 'build:plugins'], { cwd: ROOT });
  }
  run(
    yarn[0],
    [
      ...yarn.slice(1),
      'workspaces',
      'foreach',
      '--all',
      '--no-private',
      '--parallel',
      'pack',
      '--out',
      join(out, '%s-%v.tgz'),
    ],
    { cwd: ROOT },
  );
  return readdirSync(out).map(file => join(out, file));
}

// --------------------------------------------------------------------- app

function appFingerprint() {
  const hash = createHash('sha256');
  hash.update(`${CREATE_APP}\n${process.version}\n`);
  hash.update(
    readFileSync(join(ROOT, 'scripts/adoption/pinBackstageRelease.mjs')),
  );
  hash.update(JSON.stringify(readJson(join(ROOT, 'package.json')).resolutions));
  return hash.digest('hex').slice(0, 16);
}

/** `yarn` in the app: the release the template ships, whatever is on PATH. */
function appYarn(appDir) {
  const releases = join(appDir, '.yarn', 'releases');
  const release = readdirSync(releases).find(file => file.endsWith('.cjs'));
  return [process.execPath, join(releases, release)];
}

/** A folder with a `yarn` that runs the app's, for the READMEs' commands. */
function yarnShim(appDir) {
  const dir = join(CACHE, 'bin');
  mkdirSync(dir, { recursive: true });
  const [node, release] = appYarn(appDir);
  writeFileSync(
    join(dir, 'yarn'),
    `#!/bin/sh\nexec "${node}" "${release}" "$@"\n`,
  );
  chmodSync(join(dir, 'yarn'), 0o755);
  return dir;
}

function git(appDir, args) {
  run(
    'git',
    [
      '-c',
      'user.name=adoption',
      '-c',
      'user.email=adoption@localhost',
      ...args,
    ],
    { cwd: appDir },
  );
}

/**
 * The environment of commands in the app. The test command runs with
 * CI=true, under which Yarn refuses to change a lockfile; a team adding a
 * plugin to its app does change it.
 */
function appEnv(path) {
  return {
    ...process.env,
    PATH: path,
    YARN_ENABLE_IMMUTABLE_INSTALLS: 'false',
  };
}

/**
 * Holds the cache for this run: two runs at once would delete each other's
 * cached app and race for the app's ports, so the second fails at once and
 * names the first. A holder that died leaves a pid that is taken over.
 */
function holdCache() {
  mkdirSync(CACHE, { recursive: true });
  const holderFile = join(CACHE, 'running.pid');
  try {
    writeFileSync(holderFile, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(holderFile, 'utf8'));
    if (isRunning(holder)) {
      throw new Error(
        `another adoption test (pid ${holder}) is using ${CACHE}; wait for it or stop it`,
      );
    }
    writeFileSync(holderFile, String(process.pid));
  }
  process.on('exit', () => rmSync(holderFile, { force: true }));
  return `pid ${process.pid}`;
}

function isRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The generated, installed app: from the cache, or made and cached. */
function preparedApp() {
  const appDir = join(CACHE, `app-${appFingerprint()}`);
  const ready = join(CACHE, `app-${appFingerprint()}.ready`);
  if (existsSync(ready)) {
    log(`resetting the cached app ${appDir}`);
    git(appDir, ['reset', '-q', '--hard', 'pristine']);
    git(appDir, ['clean', '-q', '-fdx', '-e', 'node_modules', '-e', '.yarn']);
    return { appDir, cached: true };
  }
  for (const old of existsSync(CACHE) ? readdirSync(CACHE) : []) {
    if (old.startsWith('app-')) {
      rmSync(join(CACHE, old), { recursive: true, force: true });
    }
  }
  mkdirSync(CACHE, { recursive: true });
  log(`generating an app with ${CREATE_APP} in ${appDir}`);
  run(createAppBin(), ['--skip-install', '--path', appDir], {
    cwd: CACHE,
    env: {
      ...process.env,
      BACKSTAGE_APP_NAME: 'adoption',
      // create-app refuses to run without a yarn executable on PATH.
      PATH: `${yarnShimForCreateApp()}:${process.env.PATH}`,
    },
  });
  const yarn = appYarn(appDir);
  pinBackstageRelease({
    repoRoot: ROOT,
    appDir,
    install: () =>
      spawnSync(yarn[0], [...yarn.slice(1), 'install'], {
        cwd: appDir,
        stdio: ['ignore', 'inherit', 'inherit'],
        timeout: COMMAND_LIMIT_MS,
        killSignal: 'SIGKILL',
        env: appEnv(process.env.PATH),
      }).status,
    log,
  });
  if (!existsSync(join(appDir, '.git'))) git(appDir, ['init', '-q']);
  git(appDir, ['add', '-A']);
  git(appDir, [
    'commit',
    '-q',
    '-m',
    'create-app, pinned to 1.55',
    '--no-verify',
  ]);
  git(appDir, ['tag', '-f', 'pristine']);
  writeFileSync(ready, new Date().toISOString());
  return { appDir, cached: false };
}

/**
 * create-app, installed in the test's cache. Not through `npx`: an `npx` run
 * that is interrupted leaves a half-made entry in npm's shared cache that
 * fails every later run on the machine. This one is installed beside its
 * place and moved there whole.
 */
function createAppBin() {
  const dir = join(CACHE, CREATE_APP.replace(/[@/]/g, '_'));
  const bin = join(dir, 'node_modules', '.bin', 'backstage-create-app');
  if (existsSync(bin)) return bin;
  // This run holds the cache: what an interrupted install left goes.
  for (const entry of readdirSync(CACHE)) {
    if (entry.startsWith(`${basename(dir)}.partial-`)) {
      rmSync(join(CACHE, entry), { recursive: true, force: true });
    }
  }
  const partial = `${dir}.partial-${process.pid}`;
  mkdirSync(partial, { recursive: true });
  log(`installing ${CREATE_APP} into ${dir}`);
  run('npm', [
    'install',
    '--prefix',
    partial,
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    CREATE_APP,
  ]);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return bin;
}

/** create-app only checks that a `yarn` runs; the one the test command runs under does. */
function yarnShimForCreateApp() {
  const dir = join(CACHE, 'create-app-bin');
  mkdirSync(dir, { recursive: true });
  const [node, ...args] = YARN;
  writeFileSync(
    join(dir, 'yarn'),
    `#!/bin/sh\nexec "${node}" ${args.map(a => `"${a}"`).join(' ')} "$@"\n`,
  );
  chmodSync(join(dir, 'yarn'), 0o755);
  return dir;
}

// ------------------------------------------------------------ README steps

/** Sets each leaf (and each list, whole) of `value` in the YAML document. */
function mergeInto(document, value, path = []) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) {
      mergeInto(document, child, [...path, key]);
    }
    return;
  }
  document.setIn(path, value);
}

function mergeYamlFile(file, text) {
  const document = existsSync(file)
    ? parseDocument(readFileSync(file, 'utf8'))
    : parseDocument('{}');
  mergeInto(document, parse(text));
  writeFileSync(file, document.toString());
}

function applyStep(step, { appDir, registryUrl, path }) {
  switch (step.kind) {
    case 'yarnrc':
      mergeYamlFile(
        join(appDir, '.yarnrc.yml'),
        step.code.replaceAll(REGISTRY_PLACEHOLDER, registryUrl),
      );
      return;
    case 'config':
      mergeYamlFile(join(appDir, step.file), step.code);
      return;
    case 'insert': {
      const file = join(appDir, step.file);
      const lines = readFileSync(file, 'utf8').split('\n');
      const at = lines.findIndex(line => line.trim() === step.before);
      if (at === -1) {
        throw new Error(
          `${step.where}: no line "${step.before}" in ${step.file}`,
        );
      }
      lines.splice(at, 0, ...step.code.split('\n'));
      writeFileSync(file, lines.join('\n'));
      return;
    }
    case 'shell':
      for (const line of step.code.split('\n')) {
        if (!line.trim() || line.trim().startsWith('#')) continue;
        log(`$ ${line}`);
        run('bash', ['-c', line], {
          cwd: appDir,
          env: appEnv(path),
        });
      }
      return;
    default:
      throw new Error(`${step.where}: cannot apply ${step.kind}`);
  }
}

// ------------------------------------------------------- what the test adds

/** A target that answers 200 `UP` until told to fail, then 503. */
async function startTarget() {
  const target = { healthy: true };
  const server = createServer((_req, res) => {
    res.writeHead(target.healthy ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(target.healthy ? 'UP' : 'DOWN');
  });
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  target.url = `http://127.0.0.1:${server.address().port}/health`;
  target.close = () => new Promise(r => server.close(r));
  return target;
}

/** The catalog file: a System with a short-ref owner, a Component, a HealthCheck. */
function writeCatalog(appDir, targetUrl) {
  const file = join(appDir, 'adoption-catalog.yaml');
  const entities = [
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'System',
      metadata: { name: SYSTEM, title: 'Adoption shop' },
      spec: { owner: 'guests' },
    },
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Component',
      metadata: { name: 'adoption-web' },
      spec: {
        type: 'website',
        lifecycle: 'production',
        owner: 'guests',
        system: SYSTEM,
      },
    },
    {
      apiVersion: 'vigil.dev/v1alpha1',
      kind: 'HealthCheck',
      metadata: { name: 'adoption-web-health', title: 'Adoption web health' },
      spec: {
        type: 'http',
        target: targetUrl,
        interval: '5s',
        timeout: '2s',
        conditions: ['[STATUS] == 200'],
        thresholds: { failure: 1, success: 1 },
        systems: [SYSTEM],
        components: ['adoption-web'],
        owner: 'guests',
      },
    },
  ];
  writeFileSync(file, entities.map(e => stringify(e)).join('---\n'));
  return file;
}

/**
 * The test's own config, which Backstage reads after app-config.yaml: its
 * ports, probes allowed on loopback where the target runs, quicker catalog
 * polls, and the catalog file next to the app's own locations.
 */
function writeLocalConfig(appDir, catalogFile) {
  const appConfig = parse(
    readFileSync(join(appDir, 'app-config.yaml'), 'utf8'),
  );
  const config = {
    app: { baseUrl: FRONTEND },
    backend: {
      baseUrl: BACKEND,
      listen: { port: Number(new URL(BACKEND).port) },
      cors: { origin: FRONTEND },
    },
    catalog: {
      locations: [
        ...(appConfig.catalog?.locations ?? []),
        {
          type: 'file',
          target: catalogFile,
          rules: [{ allow: ['System', 'Component', 'HealthCheck'] }],
        },
      ],
    },
    healthcheck: {
      network: { allowLoopback: true },
      reconcile: { catalogPollInterval: '5s' },
    },
  };
  writeFileSync(join(appDir, 'app-config.local.yaml'), stringify(config));
}

// ----------------------------------------------------------------- running

async function waitFor(what, limitMs, probe) {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) {
      throw new Error(`${what} did not happen within ${limitMs / 1000} s`);
    }
    await new Promise(r => setTimeout(r, 1000));
  }
}

function startApp(appDir, path) {
  const output = join(RESULTS, 'app.log');
  const fd = openLog(output);
  const child = spawn('yarn', ['start'], {
    cwd: appDir,
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...appEnv(path), BROWSER: 'none' },
  });
  child.output = output;
  return child;
}

function openLog(file) {
  return openSync(file, 'w');
}

/**
 * Yarn keeps fetched packages by name and version; this run's tarballs have
 * the version of the last run's, so the old ones go first.
 */
function forgetCachedVigilPackages(appDir) {
  const yarn = appYarn(appDir);
  const cacheFolder = execFileSync(
    yarn[0],
    [...yarn.slice(1), 'config', 'get', 'cacheFolder'],
    { cwd: appDir, encoding: 'utf8' },
  ).trim();
  for (const file of existsSync(cacheFolder) ? readdirSync(cacheFolder) : []) {
    if (file.startsWith('@vigil-')) rmSync(join(cacheFolder, file));
  }
}

async function systemStatus(token) {
  const response = await fetch(
    `${BACKEND}/api/healthcheck/v1/systems/default/${SYSTEM}`,
    { headers: { Authorization: `Bearer ${token}` } },
  ).catch(() => undefined);
  if (!response?.ok) return undefined;
  return (await response.json()).status;
}

/**
 * Loads the page until the table row that names `rowText` shows the status
 * word, as a user would press reload; then keeps a screenshot.
 */
async function seeStatus(page, { url, rowText, word, shot }) {
  try {
    await waitFor(
      `"${word}" in the row of ${rowText} on ${url}`,
      STATUS_LIMIT_MS,
      async () => {
        await page.goto(url);
        try {
          await page
            .getByRole('row')
            .filter({ hasText: rowText })
            .getByText(word, { exact: true })
            .first()
            .waitFor({ timeout: 10_000 });
          return true;
        } catch {
          return false;
        }
      },
    );
  } finally {
    await page.screenshot({ path: join(RESULTS, shot) });
  }
}

let YARN;

async function main() {
  // The test command passes the Yarn it runs under; on its own, the one on PATH.
  YARN = process.env.VIGIL_YARN
    ? JSON.parse(process.env.VIGIL_YARN)
    : [
        execFileSync('bash', ['-c', 'command -v yarn'], {
          encoding: 'utf8',
        }).trim(),
      ];
  mkdirSync(RESULTS, { recursive: true });
  let tarballs;
  let app;
  let registry;
  let target;
  let portal;
  let browser;
  try {
    await check('the cache held by this run alone', holdCache);
    await check('build and pack the packages', () => {
      tarballs = packPackages(YARN);
      return tarballs.map(file => file.split('/').pop()).join(', ');
    });
    await check(`a ${CREATE_APP} app, installed`, () => {
      app = preparedApp();
      return app.cached ? 'from the cache' : 'generated and cached';
    });
    const { appDir } = app;
    const path = `${yarnShim(appDir)}:${process.env.PATH}`;
    registry = await startRegistry(tarballs);
    await check('the READMEs\u2019 steps', () => {
      forgetCachedVigilPackages(appDir);
      // The test's registry speaks plain HTTP on loopback; a real one would not.
      mergeYamlFile(
        join(appDir, '.yarnrc.yml'),
        stringify({ unsafeHttpWhitelist: ['127.0.0.1'] }),
      );
      const steps = READMES.flatMap(file => readmeSteps(join(ROOT, file)));
      for (const step of steps) {
        applyStep(step, { appDir, registryUrl: registry.url, path });
      }
      return `${steps.length} steps from ${READMES.length} READMEs`;
    });
    await check('yarn install', () =>
      run('yarn', ['install'], {
        cwd: appDir,
        env: appEnv(path),
      }),
    );
    await check('yarn tsc', () =>
      run('yarn', ['tsc'], {
        cwd: appDir,
        env: appEnv(path),
      }),
    );
    target = await startTarget();
    writeLocalConfig(appDir, writeCatalog(appDir, target.url));
    portal = startApp(appDir, path);
    await check('yarn start: frontend and backend answer', async () => {
      await waitFor('the app answering', STARTUP_LIMIT_MS, async () => {
        if (portal.exitCode !== null) {
          throw new Error(
            `yarn start exited with ${portal.exitCode}; see ${portal.output}`,
          );
        }
        return (
          (await isUp(FRONTEND)) &&
          (await isUp(`${BACKEND}/api/healthcheck/health`))
        );
      });
    });
    const token = await waitFor('a guest token', 30_000, () =>
      guestToken(BACKEND).catch(() => undefined),
    );
    await check('the catalog file ingested and its check healthy', () =>
      waitFor(
        'a healthy rollup',
        STATUS_LIMIT_MS,
        async () => (await systemStatus(token)) === 'healthy',
      ),
    );
    browser = await launchChromium();
    const page = await browser.newPage({
      viewport: { width: 1400, height: 900 },
    });
    page.setDefaultTimeout(60_000);
    await page.goto(FRONTEND);
    // The stock app's sign-in page; the guest stays signed in across loads.
    await page.getByRole('button', { name: 'Enter' }).click();
    await page.getByRole('link', { name: 'Health' }).first().waitFor();
    const healthPage = `${FRONTEND}/healthcheck`;
    const healthTab = `${FRONTEND}/catalog/default/system/${SYSTEM}/health`;
    await check('the Health page shows the system healthy', () =>
      seeStatus(page, {
        url: healthPage,
        rowText: /adoption[- ]shop/i,
        word: 'Healthy',
        shot: 'health-page-healthy.png',
      }),
    );
    await check('the System\u2019s Health tab shows the check healthy', () =>
      seeStatus(page, {
        url: healthTab,
        rowText: /adoption[- ]web[- ]health/i,
        word: 'Healthy',
        shot: 'health-tab-healthy.png',
      }),
    );
    target.healthy = false;
    await check(
      'the Health page shows the system unhealthy after the target fails',
      () =>
        seeStatus(page, {
          url: healthPage,
          rowText: /adoption[- ]shop/i,
          word: 'Unhealthy',
          shot: 'health-page-unhealthy.png',
        }),
    );
    await check('the System\u2019s Health tab shows it unhealthy', () =>
      seeStatus(page, {
        url: healthTab,
        rowText: /adoption[- ]web[- ]health/i,
        word: 'Unhealthy',
        shot: 'health-tab-unhealthy.png',
      }),
    );
  } catch {
    // Logged by check(); what was not run is not counted.
  } finally {
    await browser?.close();
    await stopProcessGroup(portal);
    await target?.close();
    await registry?.close();
  }
  const passed = results.filter(r => r.ok).length;
  const failed = results.length - passed;
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.stdout.write(`adoption: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

main();
