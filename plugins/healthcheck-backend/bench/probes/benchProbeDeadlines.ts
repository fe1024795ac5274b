/*
 * How close to its deadline each built-in probe type answers, against
 * loopback servers that never answer.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     bench/probes/benchProbeDeadlines.ts [--runs N] [--timeout MS]
 *     [--concurrency N]
 */
import { main } from './probeDeadlineBenchmarks';

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
