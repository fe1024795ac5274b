import { Config, ConfigReader } from '@backstage/config';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

const REPO_ROOT = resolve(__dirname, '../../..');
/** Where `yarn dev` runs the backend. */
const BACKEND_DIR = resolve(REPO_ROOT, 'packages/backend');
/** The bundle's root, where the image runs `node packages/backend`; it holds demo/ as the repository does. */
const BUNDLE_ROOT = REPO_ROOT;

/** The app's config files as the backend loads them: later ones win. */
function loadAppConfig(...files: string[]) {
  return ConfigReader.fromConfigs(
    files.map(file => ({
      context: file,
      data: parse(readFileSync(resolve(REPO_ROOT, file), 'utf8')),
    })),
  );
}

describe('app config', () => {
  it('lets the demo probe its targets on loopback', () => {
    const config = loadAppConfig('app-config.yaml');
    expect(config.getBoolean('healthcheck.network.allowLoopback')).toBe(true);
  });

  it("offers Vigil's actions to agents through the MCP actions backend", () => {
    const config = loadAppConfig('app-config.yaml');
    expect(config.getStringArray('backend.actions.pluginSources')).toContain(
      'healthcheck',
    );
  });

  it('closes loopback again in production, whatever the demo opened', () => {
    const config = loadAppConfig(
      'app-config.yaml',
      'app-config.production.yaml',
    );
    expect(config.getBoolean('healthcheck.network.allowLoopback')).toBe(false);
    expect(
      config.getOptionalBoolean('healthcheck.network.allowPrivate') ?? false,
    ).toBe(false);
  });

  // File locations resolve from the backend's working directory; a path
  // right from another directory leaves the catalog empty.
  it.each([
    {
      files: ['app-config.yaml'],
      runsIn: BACKEND_DIR,
      where: 'packages/backend',
    },
    {
      files: ['app-config.yaml', 'app-config.postgres.yaml'],
      runsIn: BACKEND_DIR,
      where: 'packages/backend',
    },
    {
      files: ['app-config.yaml', 'app-config.production.yaml'],
      runsIn: BUNDLE_ROOT,
      where: "the bundle's root",
    },
  ])('finds every catalog file of $files from $where', ({ files, runsIn }) => {
    const missing = fileLocations(loadAppConfig(...files)).filter(
      target => !existsSync(resolve(runsIn, target)),
    );
    expect(missing).toEqual([]);
  });
});

function fileLocations(config: Config): string[] {
  return config
    .getConfigArray('catalog.locations')
    .filter(location => location.getString('type') === 'file')
    .map(location => location.getString('target'));
}
