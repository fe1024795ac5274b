/*
 * The bulkhead under the seed's load, on virtual time: what it decides, not
 * how fast it decides. The real harness (HTTP against loopback servers, the
 * real scheduler) is separate; this one isolates admission.
 *
 *   node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON \
 *     src/admission/bench/simulateBulkhead.ts
 *
 * Runs on Node's own TypeScript support (22.18+): erasable syntax only, and
 * imports in this folder name their `.ts` files.
 */
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

// The sources import without extensions, as Jest and the Backstage build
// expect; point Node at those `.ts` files.
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (
      specifier.startsWith('.') &&
      !/\.[cm]?[jt]s$/.test(specifier) &&
      context.parentURL?.startsWith('file:')
    ) {
      for (const suffix of ['.ts', '/index.ts']) {
        const candidate = new URL(`${specifier}${suffix}`, context.parentURL);
        if (existsSync(fileURLToPath(candidate))) {
          return nextResolve(candidate.href, context);
        }
      }
    }
    return nextResolve(specifier, context);
  },
});

import('./bulkheadSimulation.ts')
  .then(simulation => simulation.main())
  .catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  });
