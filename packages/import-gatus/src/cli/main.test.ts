import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { main, parseSystemFlags } from './main';

describe('vigil-import-gatus', () => {
  let folder: string;
  let printed: string[];
  const output = {
    out: (text: string) => printed.push(text),
    err: (text: string) => printed.push(text),
  };
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'vigil-import-gatus-cli-'));
    printed = [];
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('writes one file per group, systems from a mapping file and flags, and ends with the summary', async () => {
    const config = join(folder, 'config.yaml');
    await writeFile(
      config,
      `
endpoints:
  - { name: web, group: core, url: "https://shop.example.com", conditions: ["[STATUS] == 200"] }
  - { name: api, group: core, url: "https://api.example.com", headers: { Authorization: "Bearer \${API_TOKEN}" }, conditions: ["[STATUS] == 200"] }
  - { name: nas, group: internal, url: "https://nas.example.com", conditions: ["[STATUS] == 200"] }
  - { name: ping, url: "icmp://example.com", conditions: ["[CONNECTED] == true"] }
`,
    );
    const mapping = join(folder, 'systems.yaml');
    await writeFile(mapping, 'core: system:default/shop\ninternal: nas\n');
    const out = join(folder, 'out');

    const code = await main(
      [
        config,
        '--out',
        out,
        '--systems-file',
        mapping,
        '--system',
        'internal=system:default/storage',
        '--owner',
        'group:default/sre',
      ],
      output,
    );

    expect(code).toBe(0);
    const report = printed.join('');
    expect(report).toContain(
      'reported   ping\n    ICMP (ping) endpoints: Vigil has no ICMP probe type',
    );
    expect(report).toContain(
      [
        'healthcheck:',
        '  secrets:',
        '    API_TOKEN:',
        '      value: ${API_TOKEN}',
        '      allowedOrigins:',
        '        - https://api.example.com',
      ].join('\n'),
    );
    expect(report).toContain(
      'gatus import: 4 endpoints, 3 converted, 1 reported\n',
    );
    expect((await readdir(out)).sort()).toEqual(['core.yaml', 'internal.yaml']);
    const core = parseAllDocuments(
      await readFile(join(out, 'core.yaml'), 'utf8'),
    ).map(document => document.toJS());
    expect(core.map(entity => entity.metadata.name)).toEqual(['web', 'api']);
    expect(core[1].spec.systems).toEqual(['system:default/shop']);
    expect(core[1].spec.config.headers.Authorization).toBe(
      'Bearer ${secret:API_TOKEN}',
    );
    const internal = parseAllDocuments(
      await readFile(join(out, 'internal.yaml'), 'utf8'),
    ).map(document => document.toJS());
    // A flag wins over the mapping file.
    expect(internal[0].spec.systems).toEqual(['system:default/storage']);
  });

  it('writes nothing on a dry run', async () => {
    const config = join(folder, 'config.yaml');
    await writeFile(
      config,
      'endpoints:\n  - { name: a, url: "https://a.example.com", conditions: ["[STATUS] == 200"] }\n',
    );
    const out = join(folder, 'out');
    expect(await main([config, '--out', out, '--dry-run'], output)).toBe(0);
    await expect(readdir(out)).rejects.toThrow('ENOENT');
  });

  it('fails with the reason and the usage on bad input', async () => {
    expect(await main([], output)).toBe(1);
    expect(printed.join('')).toMatch(/^Name a Gatus config file or folder\./);

    printed = [];
    expect(await main([join(folder, 'missing.yaml')], output)).toBe(1);
    expect(printed.join('')).toContain('vigil-import-gatus: cannot read');
  });
});

describe('parseSystemFlags', () => {
  it('reads group=ref, the last = separating them', () => {
    expect(parseSystemFlags(['core=system:default/shop', 'a=b=c'])).toEqual({
      core: 'system:default/shop',
      'a=b': 'c',
    });
  });

  it('says how to write a flag without a system', () => {
    expect(() => parseSystemFlags(['core'])).toThrow(
      '--system "core": write <gatus group>=<system ref>, such as core=system:default/shop',
    );
  });
});
