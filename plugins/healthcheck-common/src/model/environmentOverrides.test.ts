import {
  applyEnvironmentOverride,
  canonicalEnvironmentName,
  findEnvironmentOverride,
  mergePatch,
} from './environmentOverrides';

describe('canonicalEnvironmentName', () => {
  it('lower-cases and trims', () => {
    expect(canonicalEnvironmentName(' Production ')).toBe('production');
    expect(canonicalEnvironmentName('EU-West')).toBe('eu-west');
  });
});

describe('applyEnvironmentOverride', () => {
  const spec = {
    target: 'https://{{ system.name }}.{{ environment.name }}.example.com',
    config: {
      method: 'GET',
      headers: { Accept: 'application/json', Authorization: 'Bearer prod' },
    },
    environmentOverrides: {
      Staging: {
        config: { headers: { Authorization: 'Bearer staging' } },
      },
      canary: {
        target: 'https://canary.example.com/health',
        config: { headers: { Accept: null }, method: 'HEAD' },
      },
    },
  };

  it('uses the check as it is where no override applies', () => {
    expect(applyEnvironmentOverride(spec, 'production')).toEqual({
      target: spec.target,
      config: spec.config,
    });
  });

  it('merges an override one header at a time, matching its key without regard to case', () => {
    expect(applyEnvironmentOverride(spec, 'staging')).toEqual({
      target: spec.target,
      config: {
        method: 'GET',
        headers: {
          Accept: 'application/json',
          Authorization: 'Bearer staging',
        },
      },
    });
  });

  it('replaces the target, replaces scalars and removes what the override sets to null', () => {
    expect(applyEnvironmentOverride(spec, 'Canary')).toEqual({
      target: 'https://canary.example.com/health',
      config: { method: 'HEAD', headers: { Authorization: 'Bearer prod' } },
    });
  });

  it('leaves the check untouched', () => {
    const before = JSON.stringify(spec);
    applyEnvironmentOverride(spec, 'canary');
    expect(JSON.stringify(spec)).toBe(before);
  });

  it('gives an empty config to a check that has none', () => {
    expect(applyEnvironmentOverride({ target: 't' }, 'x')).toEqual({
      target: 't',
      config: {},
    });
  });
});

describe('findEnvironmentOverride', () => {
  it('picks the first of keys that differ only in case, whatever their order', () => {
    const a = { STAGING: { target: 'upper' }, staging: { target: 'lower' } };
    const b = { staging: { target: 'lower' }, STAGING: { target: 'upper' } };
    expect(findEnvironmentOverride(a, 'Staging')?.target).toBe('lower');
    expect(findEnvironmentOverride(b, 'Staging')?.target).toBe('lower');
    expect(
      findEnvironmentOverride({ Staging: { target: 'x' } }, 'STAGING'),
    ).toEqual({ target: 'x' });
  });
});

describe('mergePatch', () => {
  it('follows RFC 7386: arrays replace, objects merge, null removes', () => {
    expect(
      mergePatch(
        { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] },
        { a: 'z', c: { f: null }, list: [3], n: { m: 1 } },
      ),
    ).toEqual({ a: 'z', c: { d: 'e' }, list: [3], n: { m: 1 } });
  });

  it('keeps a key named __proto__ as data', () => {
    const merged = mergePatch({}, JSON.parse('{"__proto__": {"x": 1}}'));
    expect(Object.keys(merged as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});
