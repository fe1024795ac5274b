// Full page loads of the demo portal, as a first visit makes them (browser
// cache off): the Health overview page and a System's Health tab. For each,
// the median of a few loads of three moments from navigation start:
// DOMContentLoaded, the load event, and the first animation frame that shows
// the page's health data (the overview's counts and a row per demo system;
// every cell of the System's matrix). productionBundle.mjs measures the
// production bundle and the dev server side by side with these.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, getJson, median } from './performance.mjs';

const SHOTS = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test-results',
  'e2e',
);
mkdirSync(SHOTS, { recursive: true });

export const LOADS_PER_PAGE = 3;
export const MOMENTS = ['DOMContentLoaded', 'load', 'health data shown'];
/** A System with checks in the demo catalog. */
const DEMO_SYSTEM = 'payments';
/** A catalog poll (10 s) and a reconcile, with room for a busy machine. */
const CHECKS_WITHIN_MS = 60_000;

// Page functions: they run in the browser, so they use only their argument.

/** The overview: five counts with numbers, a row per system, no spinner. */
function overviewShown({ rows }) {
  const tiles = document.querySelectorAll('[data-testid^="status-count-"]');
  if (tiles.length !== 5) return false;
  for (const tile of tiles) {
    if (!/\d/.test(tile.textContent)) return false;
  }
  if (document.querySelectorAll('tbody tr a[href$="/health"]').length < rows) {
    return false;
  }
  if (document.querySelector('main [role="progressbar"]')) return false;
  return performance.now();
}

/** The Health tab: its summary line and every matrix cell with a status. */
function matrixShown({ title, cells }) {
  if (!document.body.textContent.includes(title)) return false;
  const found = document.querySelectorAll('[data-testid^="cell-"]');
  if (found.length !== cells) return false;
  for (const cell of found) {
    if (!cell.textContent.trim()) return false;
  }
  return performance.now();
}

function navigationMoments() {
  const [entry] = performance.getEntriesByType('navigation');
  return {
    domContentLoaded: entry.domContentLoadedEventEnd,
    load: entry.loadEventEnd,
  };
}

/**
 * The pages to load and what shows each one's health data, from what the
 * portal's Health API says the demo catalog holds.
 */
export async function demoPages(backend, token) {
  // The systems come with the catalog; their checks a catalog poll later.
  const deadline = Date.now() + CHECKS_WITHIN_MS;
  let systems;
  let system;
  for (;;) {
    systems = await getJson(
      backend,
      token,
      '/api/healthcheck/v1/systems?limit=100',
    );
    system = await getJson(
      backend,
      token,
      `/api/healthcheck/v1/systems/default/${DEMO_SYSTEM}`,
    );
    if (
      (systems?.items?.length && system?.checks?.length) ||
      Date.now() > deadline
    ) {
      break;
    }
    await new Promise(r => setTimeout(r, 2000));
  }
  if (!systems?.items?.length || !system?.checks?.length) {
    throw new Error(
      `the Health API lists no demo systems or no checks of ${DEMO_SYSTEM}`,
    );
  }
  const checks = system.checks.length;
  const environments = system.environmentNames.length;
  const cells = system.checks.reduce(
    (sum, check) => sum + Object.keys(check.cells).length,
    0,
  );
  return [
    {
      name: 'Health overview page',
      path: '/healthcheck',
      shown: overviewShown,
      arg: { rows: systems.items.length },
    },
    {
      name: `${DEMO_SYSTEM} System's Health tab`,
      path: `/catalog/default/system/${DEMO_SYSTEM}/health`,
      shown: matrixShown,
      arg: {
        title: `${checks} checks × ${environments} environments`,
        cells,
      },
    },
  ];
}

/** Signs the page in as the demo guest. */
export async function signIn(page, frontend) {
  await page.goto(frontend);
  await page.getByRole('button', { name: 'Enter' }).click();
  await page.getByRole('link', { name: 'Health' }).first().waitFor();
}

/**
 * One full load of `target.path` from `frontend` with the browser cache off:
 * milliseconds from navigation start to each moment.
 */
export async function loadOnce(page, frontend, target) {
  const url = `${frontend}${target.path}`;
  await page.goto(url, { waitUntil: 'commit' });
  let shownAt;
  try {
    const handle = await page.waitForFunction(target.shown, target.arg, {
      polling: 'raf',
      timeout: 60_000,
    });
    shownAt = await handle.jsonValue();
  } catch (error) {
    const screenshot = join(SHOTS, `page-load-${new URL(frontend).port}.png`);
    await page.screenshot({ path: screenshot });
    throw new Error(
      `${url} did not show its health data (${JSON.stringify(
        target.arg,
      )}); screenshot: ${screenshot}`,
      { cause: error },
    );
  }
  await page.waitForLoadState('load');
  const { domContentLoaded, load } = await page.evaluate(navigationMoments);
  return {
    DOMContentLoaded: domContentLoaded,
    load,
    'health data shown': shownAt,
  };
}

/** Turns the browser cache off for `page`, so every load is a first visit. */
export async function disableCache(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
}

/** Medians of each moment over a target's loads. */
export function medians(loads) {
  return Object.fromEntries(
    MOMENTS.map(moment => [moment, median(loads.map(load => load[moment]))]),
  );
}

/**
 * The table: one row per page and moment, a column of medians per portal,
 * and the last column's ratio to the first.
 */
export function formatPageLoads(pages, portals) {
  const header = ['page', 'moment', ...portals.map(p => p.name)];
  if (portals.length > 1) {
    header.push(`${portals[0].name} / ${portals[portals.length - 1].name}`);
  }
  const lines = pages.flatMap(page =>
    MOMENTS.map(moment => {
      const values = portals.map(p => p.medians[page.name][moment]);
      const line = [
        page.name,
        moment,
        ...values.map(ms => `${Math.round(ms)} ms`),
      ];
      if (portals.length > 1) {
        line.push(`${(values[0] / values[values.length - 1]).toFixed(1)}x`);
      }
      return line;
    }),
  );
  return formatTable(header, lines);
}
