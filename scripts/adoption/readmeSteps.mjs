// The install steps of the plugins' READMEs, as the adoption test runs them.
//
// A README marks a code block as a step with an HTML comment on the line
// before its fence, which renders as nothing:
//
//   <!-- adoption:shell -->                 each line is a command run in the app's root
//   <!-- adoption:yarnrc -->                YAML merged into the app's .yarnrc.yml
//   <!-- adoption:config app-config.yaml --> YAML merged into that file of the app
//   <!-- adoption:insert FILE before "LINE" --> the code inserted before that line of FILE
//
// The block is what the reader copies; the test never rewrites it, except
// the registry address of `yarnrc`, which only the test's own registry has.
import { readFileSync } from 'node:fs';

const MARKER = /^<!-- adoption:(\S+)(.*?)-->\s*$/;
const FENCE = /^```/;

/** The marked steps of one README, in order, each with where it is. */
export function readmeSteps(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const steps = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (!marker) continue;
    const where = `${file}:${i + 1}`;
    if (!FENCE.test(lines[i + 1] ?? '')) {
      throw new Error(
        `${where}: an adoption marker must stand right above a code block`,
      );
    }
    const end = lines.findIndex((line, j) => j > i + 1 && FENCE.test(line));
    if (end === -1) throw new Error(`${where}: the code block never ends`);
    const code = lines.slice(i + 2, end).join('\n');
    steps.push({
      ...parseMarker(marker[1], marker[2].trim(), where),
      code,
      where,
    });
    i = end;
  }
  return steps;
}

function parseMarker(kind, args, where) {
  switch (kind) {
    case 'shell':
    case 'yarnrc':
      return { kind };
    case 'config':
      if (!args) throw new Error(`${where}: adoption:config names no file`);
      return { kind, file: args };
    case 'insert': {
      const match = /^(\S+) before "(.+)"$/.exec(args);
      if (!match) {
        throw new Error(`${where}: write adoption:insert FILE before "LINE"`);
      }
      return { kind, file: match[1], before: match[2] };
    }
    default:
      throw new Error(`${where}: unknown adoption step '${kind}'`);
  }
}
