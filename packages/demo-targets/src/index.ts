/*
 * Starts the demo targets: `node src/index.ts` (Node 22.18+ strips the types).
 * Node resolves ES module imports by their real file name, hence `.ts` below.
 */
import {
  DEFAULT_PING_INTERVAL_MS,
  DEFAULT_PING_URL,
  startDemoPinger,
} from './demoPinger.ts';
import { readDemoTargetsSettings, startDemoTargets } from './server.ts';

async function main(): Promise<void> {
  const settings = readDemoTargetsSettings(process.env);
  if (!settings.ok) {
    throw new Error(settings.message);
  }
  const { host } = settings.value;
  const targets = await startDemoTargets(settings.value);
  console.log(
    `demo-targets: HTTP on http://${host}:${targets.httpPort}/ (control page), TCP echo on ${host}:${targets.tcpPort}`,
  );

  // Plays the analytics export job of the demo's heartbeat check.
  const pinger = startDemoPinger({
    url: process.env.DEMO_HEARTBEAT_URL ?? DEFAULT_PING_URL,
    intervalMs: DEFAULT_PING_INTERVAL_MS,
    log: line => console.log(line),
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      return;
    }
    stopping = true;
    pinger.stop();
    console.log(`demo-targets: ${signal} received, shutting down`);
    targets.close().then(
      () => console.log('demo-targets: stopped'),
      error => {
        console.error(`demo-targets: shutdown failed: ${error}`);
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch(error => {
  console.error(`demo-targets: ${error.message ?? error}`);
  process.exitCode = 1;
});
