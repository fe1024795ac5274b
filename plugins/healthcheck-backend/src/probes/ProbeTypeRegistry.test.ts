import { ProbeTypeRegistry } from './ProbeTypeRegistry';

const probe = (type: string) => ({
  type,
  run: async () => ({ ok: true, durationMs: 1 }),
});

describe('ProbeTypeRegistry', () => {
  it('lists the types it was given, sorted', () => {
    const registry = new ProbeTypeRegistry();
    registry.add(probe('tcp'));
    registry.add(probe('http'));
    expect(registry.list()).toEqual(['http', 'tcp']);
    expect(registry.get('http')?.type).toBe('http');
    expect(registry.get('smtp')).toBeUndefined();
  });

  it('refuses a second type of the same name', () => {
    const registry = new ProbeTypeRegistry();
    registry.add(probe('http'));
    expect(() => registry.add(probe('http'))).toThrow(
      "Probe type 'http' is already registered",
    );
  });

  it('refuses names that checks could not spell', () => {
    const registry = new ProbeTypeRegistry();
    expect(() => registry.add(probe('HTTP'))).toThrow(
      "Probe type name 'HTTP' is invalid",
    );
    expect(() => registry.add(probe(''))).toThrow('is invalid');
  });
});
