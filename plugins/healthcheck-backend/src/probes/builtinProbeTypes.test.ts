import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { createBuiltinProbeTypes } from './builtinProbeTypes';
import { ProbeTypeRegistry } from './ProbeTypeRegistry';

const builtins = createBuiltinProbeTypes({
  networkPolicy: { allowLoopback: false, allowPrivate: false },
  secrets: new ProbeSecrets({}),
});

describe('createBuiltinProbeTypes', () => {
  it('brings http, tcp, dns and tls, each with a schema', () => {
    expect(builtins.map(type => type.type)).toEqual([
      'http',
      'tcp',
      'dns',
      'tls',
    ]);
    for (const type of builtins) {
      expect(type.configSchema).toMatchObject({ type: 'object' });
    }
  });

  it('registers like any module-added type', () => {
    const registry = new ProbeTypeRegistry();
    builtins.forEach(type => registry.add(type));
    expect(registry.list()).toEqual(['dns', 'http', 'tcp', 'tls']);
  });
});
