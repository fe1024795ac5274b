/* eslint-disable no-console */
/*
 * Times `ProbeSecrets.redact` on 1 MiB bodies, the largest a probe keeps by
 * default, with 20 secrets of the shapes portals hold (API tokens, hex keys,
 * passwords with punctuation), and shows that the cost grows with the
 * body's length alone: twice the body, twice the time; five times the
 * secrets, about the same time.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     bench/probes/benchRedaction.ts [--runs N]
 *
 * Bodies: JSON with no secret in it; base64 text (the worst case for the
 * base64 forms, whose characters it is made of); HTML; and a body of near
 * misses, each a secret's first characters but not the rest. Each body
 * carries one echo of a secret at its end, which must come out redacted.
 */
import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { performance } from 'node:perf_hooks';
import { randomSource } from '../randomSource';
import { readBenchArgs, type BenchCommand } from '../benchArgs';

const MIB = 1024 * 1024;
const BASE64 =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const random = randomSource(20_240_601);

function text(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += alphabet[random.int(alphabet.length)];
  }
  return out;
}

function secretValues(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    switch (i % 3) {
      case 0:
        return `tok_${text(32, `${BASE64.slice(0, 62)}-_`)}`;
      case 1:
        return text(40, '0123456789abcdef');
      default:
        return `${text(12, BASE64.slice(0, 62))}!"&<>'/ 9`;
    }
  });
}

function bodies(values: string[], length: number): Record<string, string> {
  const echo = ` ${Buffer.from(`user:${values[0]}`).toString('base64')}`;
  const fill = (unit: () => string) => {
    const parts: string[] = [];
    let size = 0;
    while (size < length - echo.length) {
      const part = unit();
      parts.push(part);
      size += part.length;
    }
    return `${parts.join('').slice(0, length - echo.length)}${echo}`;
  };
  let id = 0;
  return {
    json: fill(
      () =>
        `{"id":${id++},"name":"${text(
          12,
          BASE64.slice(0, 62),
        )}","status":"UP","latencyMs":${random.int(900)}},`,
    ),
    base64: fill(() => text(76, BASE64)),
    html: fill(
      () =>
        `<tr><td class="name">${text(
          10,
          BASE64.slice(26, 52),
        )}</td><td>&quot;ok&quot; &amp; up</td></tr>\n`,
    ),
    nearMisses: fill(() => `${random.pick(values).slice(0, 14)}~ `),
  };
}

function medianMs(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

const COMMAND: BenchCommand = {
  command:
    'node --require @backstage/cli/config/nodeTransform.cjs bench/probes/benchRedaction.ts',
  flags: { runs: { value: 'N' } },
};

function main(argv: string[]) {
  const runs = readBenchArgs(argv, COMMAND, args => args.whole('runs', 9));

  console.log(`redact, median of ${runs} runs (ms)`);
  console.log('secrets  body         1 MiB   2 MiB   4 MiB');
  for (const count of [20, 100]) {
    const values = secretValues(count);
    const definitions = Object.fromEntries(
      values.map((value, i) => [`SECRET_${i}`, value]),
    );
    const builtAt = performance.now();
    const secrets = new ProbeSecrets(definitions);
    const buildMs = performance.now() - builtAt;
    const bySize = [1, 2, 4].map(mib => bodies(values, mib * MIB));
    for (const name of Object.keys(bySize[0])) {
      const times = bySize.map(set => {
        const body = set[name];
        // The echo's base64 ends in a character or two shared with what
        // follows the secret, and its padding; the rest is redacted.
        if (!/\*\*\*.{0,3}=*$/.test(secrets.redact(body))) {
          throw new Error(`the echo at the end of ${name} was not redacted`);
        }
        secrets.redact(body); // warm up
        return medianMs(runs, () => secrets.redact(body));
      });
      console.log(
        `${String(count).padStart(7)}  ${name.padEnd(11)} ${times
          .map(ms => ms.toFixed(1).padStart(7))
          .join(' ')}`,
      );
    }
    console.log(
      `${String(count).padStart(7)}  (built once in ${buildMs.toFixed(1)} ms)`,
    );
  }
}

main(process.argv.slice(2));
