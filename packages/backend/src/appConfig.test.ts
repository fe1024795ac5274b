import { ConfigReader } from '@backstage/config';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/** The app's config files as the backend loads them: later ones win. */
function loadAppConfig(...files: string[]) {
  return ConfigReader.fromConfigs(
    files.map(file => ({
      context: file,
      data: parse(readFileSync(resolve(__dirname, '../../..', file), 'utf8')),
    })),
  );
}

describe('app config', () => {
  it('lets the demo probe its targets on loopback', () => {
    const config = loadAppConfig('app-config.yaml');
    expect(config.getBoolean('healthcheck.network.allowLoopback')).toBe(true);
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
});
