// What the browser tests share: headless Chromium, a URL that answers, and a
// portal started in a process group of its own, stopped as a whole.
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium floods the closed network.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Whether `url` answers 2xx within 2 s. */
export async function isUp(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Stops a child spawned with `detached: true` and everything it started:
 * SIGTERM to its process group, SIGKILL after 10 s. Nothing when it was
 * never started.
 */
export async function stopProcessGroup(child) {
  if (!child) return;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise(r => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
