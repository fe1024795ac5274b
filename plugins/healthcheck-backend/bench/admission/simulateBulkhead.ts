/*
 * The bulkhead under the seed's load, on virtual time: what it decides, not
 * how fast it decides. The real harness (HTTP against loopback servers, the
 * real scheduler) is separate; this one isolates admission.
 *
 *   node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON \
 *     bench/admission/simulateBulkhead.ts
 *
 * Runs on Node's own TypeScript support (22.18+): erasable syntax only
 * (see ../resolveTypeScriptImports.ts).
 */
import '../resolveTypeScriptImports.ts';

import('./bulkheadSimulation.ts')
  .then(simulation => simulation.main(process.argv.slice(2)))
  .catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  });
