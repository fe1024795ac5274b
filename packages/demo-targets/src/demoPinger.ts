/*
 * Plays the demo's analytics export job: every interval it pings the
 * heartbeat check's /start URL, "exports" for a moment, then pings success
 * with what it did. The URL carries a token fixed for the demo only (see
 * healthcheck.heartbeats.demoTokens in app-config.yaml).
 */

/** DEMO ONLY: the token app-config.yaml fixes for the analytics export check. */
export const DEMO_ONLY_PING_TOKEN = 'DEMO-ONLY-analytics-export-00000';
export const DEFAULT_PING_URL = `http://127.0.0.1:7007/api/healthcheck/v1/ping/${DEMO_ONLY_PING_TOKEN}`;
export const DEFAULT_PING_INTERVAL_MS = 30_000;
/** How long the pretend export runs, between its start and success pings. */
const EXPORT_MS = 1_500;

/** A running pinger. */
export interface DemoPinger {
  stop(): void;
}

/**
 * Pings now and every `intervalMs`. A ping that fails (the backend still
 * starting) is logged when the failures begin and end, not every time.
 */
export function startDemoPinger(options: {
  url: string;
  intervalMs: number;
  log: (line: string) => void;
  fetchImpl?: typeof fetch;
  exportMs?: number;
}): DemoPinger {
  const fetchImpl = options.fetchImpl ?? fetch;
  let failing = false;
  let rows = 0;
  const post = async (suffix: string, body?: string) => {
    const response = await fetchImpl(`${options.url}${suffix}`, {
      method: 'POST',
      body,
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) {
      throw new Error(`HTTP ${response.status}`);
    }
  };
  const runOnce = async () => {
    try {
      await post('/start');
      await new Promise(resolve =>
        setTimeout(resolve, options.exportMs ?? EXPORT_MS),
      );
      rows += 1000;
      await post('', `exported ${rows} rows`);
      if (failing) {
        options.log('demo-targets: heartbeat pings get through again');
      }
      failing = false;
    } catch (error) {
      if (!failing) {
        options.log(
          `demo-targets: heartbeat ping failed (${
            (error as Error).message
          }); retrying every ${options.intervalMs / 1000} s`,
        );
      }
      failing = true;
    }
  };
  void runOnce();
  const timer = setInterval(() => void runOnce(), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
