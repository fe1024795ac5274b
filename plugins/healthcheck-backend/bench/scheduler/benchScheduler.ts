/*
 * Benchmark of the slice scheduler against one timer per slice.
 *
 *   node --expose-gc --disable-warning=MODULE_TYPELESS_PACKAGE_JSON \
 *     bench/scheduler/benchScheduler.ts [--quick] [--runs N] [--window MS]
 *     [--only fleet,big,stall,heap,growth] [--sizes 10000,50000,...]
 *     [--rate FIRES_PER_S] [--growth-seconds S] [--json]
 *
 * `growth` (not in the default set) times the heap scheduler alone at each
 * size, a fresh process each, offered the same fire rate: its resident
 * memory per slice and CPU per fired probe, as a cost-growth table (or,
 * with --json, as rows for the reconciler bench's table).
 *
 * Runs on Node's own TypeScript support (22.18+): erasable syntax only, and
 * imports in this folder name their `.ts` files.
 */
import '../resolveTypeScriptImports.ts';

import('./schedulerBenchmarks.ts')
  .then(benchmarks => benchmarks.main(process.argv.slice(2)))
  .catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  });
