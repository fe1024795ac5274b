/*
 * How close to its deadline each built-in probe type answers, against
 * loopback servers that never answer.
 *
 *   node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON \
 *     src/probes/bench/benchProbeDeadlines.ts [--runs N] [--timeout MS]
 *     [--concurrency N]
 *
 * Runs on Node's own TypeScript support (22.18+): erasable syntax only.
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

// The probes' sources import without extensions, as Jest and the Backstage
// build expect; point Node at those `.ts` files.
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (
      specifier.startsWith('.') &&
      !/\.[cm]?[jt]s$/.test(specifier) &&
      context.parentURL?.startsWith('file:')
    ) {
      const candidate = new URL(`${specifier}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(candidate))) {
        return nextResolve(candidate.href, context);
      }
    }
    return nextResolve(specifier, context);
  },
});

import('./probeDeadlineBenchmarks.ts')
  .then(benchmarks => benchmarks.main(process.argv.slice(2)))
  .catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  });
