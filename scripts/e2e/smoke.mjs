#!/usr/bin/env node
// Browser smoke test: starts the portal the way `yarn start` does, signs in as
// the guest in headless Chromium, and checks that the demo catalog, a demo
// System's page and the health-check page render. Screenshots go to
// test-results/e2e/ (ignored by git): they are what a user sees.
//
// A maintenance window opened through the API over a failing target holds
// its notification until the window ends (on a system the synthetic catalog
// gives the guest to own, so the test reads its owner's notifications).
//
// The portal also loads a synthetic catalog (2,000 systems, 500 of them with
// checks, and a System with 20 checks x 3 environments; syntheticCatalog.mjs)
// through app-config.e2e.yaml, for issue 7's performance targets
// (performance.mjs); the test ends with a table of the timings against their
// targets.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  formatReport,
  getJson,
  guestToken,
  measureHealthTab,
  measureOverview,
  waitForSyntheticCatalog,
} from './performance.mjs';
import { isUp, launchChromium, stopProcessGroup } from './processes.mjs';
import {
  MAINTENANCE_SYSTEM,
  syntheticTargetModes,
  writeSyntheticCatalog,
} from './syntheticCatalog.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = join(ROOT, 'test-results', 'e2e');
const FRONTEND = 'http://localhost:3000';
const BACKEND = 'http://localhost:7007';
const STARTUP_LIMIT_MS = 300_000;
/** The demo catalog plus the synthetic one, on top of app-config.yaml. */
const CONFIG_FILES = [
  join(ROOT, 'app-config.yaml'),
  join(ROOT, 'scripts', 'e2e', 'app-config.e2e.yaml'),
];

function log(message) {
  process.stderr.write(`[e2e] ${message}\n`);
}

async function waitUntilUp(urls, portal) {
  const started = Date.now();
  while (Date.now() - started < STARTUP_LIMIT_MS) {
    if (portal.exitCode !== null) {
      throw new Error(`the portal exited early with code ${portal.exitCode}`);
    }
    const up = await Promise.all(urls.map(isUp));
    if (up.every(Boolean)) {
      return Date.now() - started;
    }
    await new Promise(r => setTimeout(r, 1000));
  }
  throw new Error(
    `the portal did not answer within ${STARTUP_LIMIT_MS / 1000} s`,
  );
}

async function reloadUntilVisible(page, url, locate) {
  const started = Date.now();
  for (;;) {
    await page.goto(url);
    try {
      await locate().waitFor({ timeout: 5000 });
      return;
    } catch (error) {
      if (Date.now() - started > 120_000) throw error;
    }
  }
}

/**
 * The health graph nodes on the page: what each says (name, status word)
 * and its border colour, with the title of the card it is in (none on the
 * Catalog Graph page).
 */
function drawnHealthNodes(page) {
  return page.$$eval('svg g[data-testid="node"]', nodes =>
    nodes.map(node => {
      let card = node.parentElement;
      while (card && !card.querySelector('h1, h2, h3, h4, h5, h6')) {
        card = card.parentElement;
      }
      return {
        card: card?.querySelector('h1, h2, h3, h4, h5, h6')?.textContent,
        texts: Array.from(node.querySelectorAll('text'), t => t.textContent),
        border: getComputedStyle(node.querySelector('rect')).stroke,
      };
    }),
  );
}

/** Polls until `accept` finds what it needs in the drawn nodes. */
async function untilNodes(page, accept, what) {
  const started = Date.now();
  let nodes = [];
  while (Date.now() - started < 60_000) {
    nodes = await drawnHealthNodes(page);
    const found = accept(nodes);
    if (found) return found;
    await new Promise(r => setTimeout(r, 500));
  }
  throw new Error(`${what}; the nodes drawn: ${JSON.stringify(nodes)}`);
}

/** How long the open tab may take to show a failing target before the test fails: 2 runs at 10 s, the rollup window, slack. */
const FAILURE_SHOWN_LIMIT_MS = 45_000;
/** Issue 7: a failure shows within the check's interval x failure threshold plus this. */
const FAILURE_SHOWN_SLACK_MS = 3000;

/** `500ms`, `10s`, `1m`, `1h` in milliseconds. */
function durationMs(text) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(text).trim());
  if (!match) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2]];
  return Number(match[1]) * unit;
}

/** The bound of issue 7 for a check: interval x failure threshold + 3 s. */
async function failureShownBound(token, checkRef) {
  const check = await getJson(
    BACKEND,
    token,
    `/api/healthcheck/v1/checks/${encodeURIComponent(checkRef)}`,
  );
  if (!check?.spec) throw new Error(`no check ${checkRef}`);
  const intervalMs = durationMs(check.spec.interval ?? '1m');
  const failures = check.spec.thresholds?.failure ?? 2;
  return {
    boundMs: intervalMs * failures + FAILURE_SHOWN_SLACK_MS,
    explained: `interval ${intervalMs / 1000} s x ${failures} failures + ${
      FAILURE_SHOWN_SLACK_MS / 1000
    } s`,
  };
}

async function setDemoTarget(environment, system, mode) {
  const response = await fetch(
    `http://127.0.0.1:7010/control/${environment}/${system}`,
    {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ mode }),
    },
  );
  if (!response.ok) {
    throw new Error(`the demo targets refused ${mode}: ${response.status}`);
  }
}

/** Breaks and slows some synthetic targets before their first probe. */
async function setSyntheticTargetModes() {
  for (const { environment, system, mode } of syntheticTargetModes()) {
    await setDemoTarget(environment, system, mode);
  }
}

/** The guest's notifications about a system since `since`, newest first. */
async function notificationsAbout(token, system, since) {
  const response = await fetch(
    `${BACKEND}/api/notifications/notifications?search=${encodeURIComponent(
      system,
    )}&limit=50`,
    { headers: { Authorization: `Bearer ${token}` } },
  );
  if (!response.ok) {
    throw new Error(`the notifications answered ${response.status}`);
  }
  const { notifications } = await response.json();
  return notifications.filter(
    n =>
      n.payload.title.startsWith(`${system} `) &&
      Date.parse(n.updated ?? n.created) >= since,
  );
}

/** POSTs to the health API as the guest; the JSON answer. */
async function postHealthApi(token, path, body) {
  const response = await fetch(`${BACKEND}/api/healthcheck${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body && { 'Content-Type': 'application/json' }),
    },
    body: body && JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(
      `POST ${path} answered ${response.status}: ${await response.text()}`,
    );
  }
  return await response.json();
}

/** How long after a window ends its held notification may take: the 30 s release task, a rollup, slack. */
const HELD_NOTIFICATION_LIMIT_MS = 75_000;
/** How long a failure is watched inside a window for a notification that must not come. */
const HELD_WATCH_MS = 20_000;

/**
 * Issue 19: a target fails inside a maintenance window. The Health tab shows
 * it failing and marked in maintenance, and no notification is sent; once
 * the window ends, the owner is notified.
 */
async function maintenanceStep(page, token, screenshot) {
  const { name } = MAINTENANCE_SYSTEM;
  const since = Date.now();
  const window = await postHealthApi(token, '/v1/maintenance-windows', {
    system: name,
    environments: ['production'],
    duration: '30m',
    reason: 'e2e: deploying',
  });
  await setDemoTarget('production', name, 'failing');
  try {
    await page.goto(`${FRONTEND}/catalog/default/system/${name}/health`);
    await page
      .getByRole('region', { name: 'Maintenance' })
      .getByText(/In maintenance until .+ — e2e: deploying/)
      .waitFor();
    await page
      .getByRole('button', {
        name: `${MAINTENANCE_SYSTEM.checkTitle} in production: Unhealthy, in maintenance`,
        exact: false,
      })
      .first()
      .waitFor({ timeout: FAILURE_SHOWN_LIMIT_MS });
    const failingAt = Date.now();
    await screenshot('10-health-tab-in-maintenance.png');
    // The failure has had time to be notified, were it not held.
    await new Promise(r => setTimeout(r, HELD_WATCH_MS));
    const during = await notificationsAbout(token, name, since);
    if (during.length > 0) {
      throw new Error(
        `a notification was sent inside the maintenance window: ${JSON.stringify(
          during.map(n => n.payload.title),
        )}`,
      );
    }
    log(
      `${name} failing inside a maintenance window: the tab shows it unhealthy and in maintenance, and no notification came in ${Math.round(
        (Date.now() - failingAt) / 1000,
      )} s`,
    );

    await postHealthApi(
      token,
      `/v1/maintenance-windows/${encodeURIComponent(window.id)}/end`,
    );
    const endedAt = Date.now();
    let after = [];
    while (Date.now() - endedAt < HELD_NOTIFICATION_LIMIT_MS) {
      after = await notificationsAbout(token, name, since);
      if (after.some(n => /unhealthy/.test(n.payload.title))) break;
      await new Promise(r => setTimeout(r, 2000));
    }
    const told = after.find(n => /unhealthy/.test(n.payload.title));
    if (!told) {
      throw new Error(
        `no notification that ${name} is unhealthy within ${
          HELD_NOTIFICATION_LIMIT_MS / 1000
        } s of the window's end`,
      );
    }
    log(
      `the window ended and the owner was told "${told.payload.title}" ${
        Date.now() - endedAt
      } ms later`,
    );
    return Date.now() - endedAt;
  } finally {
    await setDemoTarget('production', name, 'healthy');
  }
}

async function assertPortsFree() {
  for (const url of [FRONTEND, `${BACKEND}/api/healthcheck/health`]) {
    if (await isUp(url)) {
      throw new Error(`${url} already answers: stop the running portal first`);
    }
  }
}

function startPortal() {
  // Its own process group, so the whole tree (dev servers, demo targets) can
  // be stopped at once.
  return spawn(
    process.execPath,
    [
      join(ROOT, 'scripts', 'vigil.mjs'),
      'start',
      ...CONFIG_FILES.flatMap(file => ['--config', file]),
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, BROWSER: 'none' },
    },
  );
}

async function main() {
  mkdirSync(SHOTS, { recursive: true });
  await assertPortsFree();
  writeSyntheticCatalog();
  const portal = startPortal();
  let browser;
  let report;
  try {
    const startupMs = await waitUntilUp(
      [FRONTEND, `${BACKEND}/api/healthcheck/health`],
      portal,
    );
    log(`portal up after ${(startupMs / 1000).toFixed(1)} s`);
    const token = await guestToken(BACKEND);
    await setSyntheticTargetModes();
    // The catalog ingests the synthetic systems while the first steps run.
    const seeded = waitForSyntheticCatalog(BACKEND, token);
    seeded.catch(() => {}); // awaited below; this only keeps Node quiet

    browser = await launchChromium();
    const page = await browser.newPage({
      viewport: { width: 1400, height: 900 },
    });
    page.setDefaultTimeout(60_000);
    const screenshot = name => page.screenshot({ path: join(SHOTS, name) });

    await page.goto(FRONTEND);
    await page.getByRole('button', { name: 'Enter' }).click();
    // Signed in once the app's navigation shows.
    await page.getByRole('link', { name: 'Health' }).first().waitFor();
    // The catalog is the landing page; the backend may still be ingesting
    // the demo catalog, so look again until the systems are listed.
    await reloadUntilVisible(
      page,
      `${FRONTEND}/?filters%5Bkind%5D=system`,
      () => page.getByRole('link', { name: 'Payments' }).first(),
    );
    await page.screenshot({ path: join(SHOTS, '01-catalog-systems.png') });
    log('the catalog lists the demo systems');

    await page.goto(`${FRONTEND}/catalog/default/system/payments`);
    await page.getByRole('heading', { name: 'Payments' }).first().waitFor();
    await page.getByText('payments-team').first().waitFor();
    await page.getByText('Has components').waitFor();
    await page.screenshot({ path: join(SHOTS, '02-system-payments.png') });
    log('the payments System page renders with its owner and components');

    // The remaining steps and the timings run with the whole catalog in.
    const { ingestMs, statusesMs } = await seeded;

    // The Health tab: the rollup, the up-time table and the matrix. The
    // first visit loads the tab's code from the dev server; the second,
    // from the Overview tab, is what a user sees from then on.
    let started = Date.now();
    await page.goto(`${FRONTEND}/catalog/default/system/payments/health`);
    await page.getByText('2 checks × 2 environments').waitFor();
    await page.getByText('Payments health endpoint').first().waitFor();
    const healthTabColdMs = Date.now() - started;
    await page.locator('a[href$="/system/payments"]').first().click();
    await page.getByText('Has components').waitFor();
    started = Date.now();
    await page.locator('a[href$="/system/payments/health"]').first().click();
    await page.getByText('2 checks × 2 environments').waitFor();
    await page.getByText('Payments health endpoint').first().waitFor();
    const healthTabMs = Date.now() - started;
    await page.screenshot({ path: join(SHOTS, '03-health-tab.png') });
    log(
      `the Health tab shows the matrix ${healthTabMs} ms after navigation (${healthTabColdMs} ms on the first visit)`,
    );

    // A demo target fails: the open tab turns unhealthy without a reload.
    // (identity: its checks do not flap, unlike payments' card network.)
    await page.goto(`${FRONTEND}/catalog/default/system/identity/health`);
    await page.getByText('Platform health endpoints').first().waitFor();
    await page.getByText('Healthy', { exact: true }).first().waitFor();
    const failureBound = await failureShownBound(
      token,
      'healthcheck:default/platform-health',
    );
    await setDemoTarget('production', 'identity', 'failing');
    started = Date.now();
    await page
      .getByText('Unhealthy', { exact: true })
      .first()
      .waitFor({ timeout: FAILURE_SHOWN_LIMIT_MS });
    const failureShownMs = Date.now() - started;
    await page.screenshot({ path: join(SHOTS, '04-health-tab-unhealthy.png') });
    log(
      `the tab shows identity unhealthy ${failureShownMs} ms after its target failed, without a reload (bound ${failureBound.boundMs} ms: ${failureBound.explained})`,
    );

    // Run now, as the guest, who is an editor in the demo.
    await page
      .getByRole('button', { name: 'Run Platform health endpoints now' })
      .first()
      .click();
    await page
      .getByText(/Run now: started \d+/)
      .first()
      .waitFor();
    await page.screenshot({ path: join(SHOTS, '05-run-now.png') });
    log('Run now started the check in its environments');

    // The overview page lists identity unhealthy, worst first (so on the
    // first page of the 2,000-odd systems), and filters. (Not payments: it
    // is on the first page only while its card network check fails.)
    const identityLink = page.getByRole('link', {
      name: 'Identity',
      exact: true,
    });
    started = Date.now();
    await page.goto(`${FRONTEND}/healthcheck`);
    await identityLink.waitFor();
    const overviewMs = Date.now() - started;
    await page.getByTestId('status-count-unhealthy').click();
    await identityLink.waitFor();
    await page.screenshot({ path: join(SHOTS, '06-overview-unhealthy.png') });
    log(
      `the overview page lists the systems ${overviewMs} ms after navigation and filters to the unhealthy ones`,
    );

    // Analytics writes its refs short (owner: data-team, system: analytics):
    // the overview names its owner in full and filters by it, and the Health
    // tabs of the system and of its component show its check.
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await page
      .getByLabel('Owner')
      .selectOption('group:default/data-team', { timeout: 30_000 });
    const analyticsLink = page.getByRole('link', {
      name: 'Analytics',
      exact: true,
    });
    await analyticsLink.waitFor();
    await page
      .locator('a[href$="/catalog/default/group/data-team"]')
      .first()
      .waitFor();
    await page.screenshot({
      path: join(SHOTS, '06b-overview-short-owner.png'),
    });
    await page.goto(`${FRONTEND}/catalog/default/system/analytics/health`);
    await page.getByText('Analytics health endpoint').first().waitFor();
    await page.goto(
      `${FRONTEND}/catalog/default/component/reporting-dashboard/health`,
    );
    await page.getByText('Analytics health endpoint').first().waitFor();
    log(
      'short refs: the overview filters analytics by its owner data-team in full; its Health tabs show its check',
    );

    // The dependency map marks the failing system's node (storefront's
    // web front end depends on auth-service, a part of identity).
    await page.goto(`${FRONTEND}/catalog/default/system/storefront`);
    const map = page.getByText('Dependency health').first();
    await map.waitFor();
    await map.scrollIntoViewIfNeeded();
    await page
      .locator('svg text')
      .filter({ hasText: 'Unhealthy' })
      .first()
      .waitFor();
    await page.screenshot({
      path: join(SHOTS, '07-dependency-map.png'),
      fullPage: true,
    });
    log('the dependency map shows each system’s health on its nodes');

    // The stock Catalog Graph page draws health nodes too (the demo app
    // installs catalogGraphHealthModule): from analytics, whose refs are
    // short, through reporting-dashboard to auth-service in identity.
    started = Date.now();
    await page.goto(
      `${FRONTEND}/catalog-graph?rootEntityRefs[]=system:default/analytics&maxDepth=3&selectedKinds[]=system&selectedKinds[]=component&unidirectional=true`,
    );
    const statusOf = (nodes, name) =>
      nodes.find(node => node.texts[0] === name);
    const graphNodes = await untilNodes(
      page,
      nodes => {
        const analytics = statusOf(nodes, 'Analytics');
        const identity = statusOf(nodes, 'Identity');
        return analytics?.texts[1] === 'Healthy' &&
          identity?.texts[1] === 'Unhealthy'
          ? { analytics, identity }
          : undefined;
      },
      'the Catalog Graph page did not show analytics healthy and identity unhealthy',
    );
    const graphPageMs = Date.now() - started;
    if (graphNodes.analytics.border === graphNodes.identity.border) {
      throw new Error(
        `healthy and unhealthy nodes share the border ${graphNodes.identity.border}`,
      );
    }
    await page.screenshot({ path: join(SHOTS, '08-catalog-graph-page.png') });
    log(
      `the stock Catalog Graph page colours its nodes by health ${graphPageMs} ms after navigation (healthy ${graphNodes.analytics.border}, unhealthy ${graphNodes.identity.border})`,
    );

    // And the stock Relations card of an entity page.
    await page.goto(`${FRONTEND}/catalog/default/system/identity`);
    await untilNodes(
      page,
      nodes =>
        nodes.find(
          node =>
            node.card === 'Relations' &&
            node.texts[0] === 'Identity' &&
            node.texts[1] === 'Unhealthy',
        ),
      'the Relations card did not show identity unhealthy',
    );
    await page.screenshot({
      path: join(SHOTS, '09-relations-card.png'),
      fullPage: true,
    });
    log('the stock Relations card shows each system’s health on its nodes');

    await setDemoTarget('production', 'identity', 'healthy');

    const heldNotificationMs = await maintenanceStep(page, token, screenshot);

    // Issue 7's targets, with the synthetic catalog in.
    const healthTabRows = await measureHealthTab(page, FRONTEND, screenshot);
    const overviewRows = await measureOverview(
      page,
      { frontend: FRONTEND, backend: BACKEND, token },
      screenshot,
    );
    report = formatReport([
      ...healthTabRows,
      ...overviewRows,
      {
        measurement: `Target failing to the open page showing it (${failureBound.explained})`,
        value: failureShownMs,
        target: failureBound.boundMs,
      },
      {
        measurement:
          'Health tab of payments (2 x 2), in-app, wall clock (demo step)',
        value: healthTabMs,
      },
      {
        measurement:
          'Overview lists identity, full page load, wall clock (demo step)',
        value: overviewMs,
      },
      {
        measurement:
          'Maintenance window ended to the held notification (release task every 30 s)',
        value: heldNotificationMs,
        target: HELD_NOTIFICATION_LIMIT_MS,
      },
      {
        measurement: 'Catalog ingestion of the 2,001 synthetic systems',
        value: ingestMs,
      },
      {
        measurement: 'Then until every checked one has a status',
        value: statusesMs,
      },
    ]);
    log(`screenshots in ${SHOTS}`);
  } finally {
    await browser?.close();
    await stopProcessGroup(portal);
  }
  // After the portal stopped, so that its log does not interleave.
  process.stdout.write(
    `e2e timings (this machine; navigations are the median of 3; a FAIL does not fail the run):\n${report}\n`,
  );
}

main().then(
  () => {
    process.stdout.write('e2e smoke: 13 passed, 0 failed\n');
  },
  error => {
    log(`failed: ${error.stack ?? error}`);
    process.exitCode = 1;
  },
);
