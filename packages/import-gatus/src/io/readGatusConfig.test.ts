import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeGatusConfig, readGatusConfig } from './readGatusConfig';

describe('readGatusConfig', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gatus-config-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('reads one file, with YAML merge keys', async () => {
    const file = join(folder, 'config.yaml');
    await writeFile(
      file,
      'defaults: &d\n  interval: 5m\nendpoints:\n  - name: a\n    <<: *d\n',
    );
    const { config, files } = await readGatusConfig(file);
    expect(files).toEqual([file]);
    expect(config.endpoints).toEqual([{ name: 'a', interval: '5m' }]);
  });

  it('merges every YAML file under a folder as Gatus does, in name order', async () => {
    await mkdir(join(folder, 'nested'));
    await writeFile(join(folder, 'b.yaml'), 'endpoints:\n  - name: b\n');
    await writeFile(
      join(folder, 'a.yml'),
      'metrics: true\nendpoints:\n  - name: a\n',
    );
    await writeFile(
      join(folder, 'nested', 'c.yaml'),
      'endpoints:\n  - name: c\n',
    );
    await writeFile(join(folder, 'notes.txt'), 'not yaml: [');
    const { config } = await readGatusConfig(folder);
    expect(config).toEqual({
      metrics: true,
      endpoints: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
    });
  });

  it('says which file is not YAML', async () => {
    const file = join(folder, 'broken.yaml');
    await writeFile(file, 'endpoints: [');
    await expect(readGatusConfig(file)).rejects.toThrow(
      `${file} is not valid YAML`,
    );
  });
});

describe('mergeGatusConfig', () => {
  it('refuses one key set to two values, naming it', () => {
    expect(() =>
      mergeGatusConfig(
        { storage: { type: 'sqlite' } },
        { storage: { type: 'postgres' } },
        'b.yaml',
      ),
    ).toThrow(
      'b.yaml: storage.type is already set to another value by an earlier file',
    );
  });
});
