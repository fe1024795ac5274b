import { ConfigReader } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { findSecretReferences, ProbeSecrets } from './secrets';

const secrets = new ProbeSecrets({
  API_TOKEN: 's3cr3t-token',
  DB_PASSWORD: 'p@ss "word"/1',
});

describe('findSecretReferences', () => {
  it('finds every reference with the path of the string that holds it', () => {
    expect(
      findSecretReferences({
        headers: { Authorization: 'Bearer ${secret:API_TOKEN}' },
        body: '{"user":"app","password":"${secret:DB_PASSWORD}"}',
        tags: ['${secret:API_TOKEN}'],
        maxRedirects: 3,
      }),
    ).toEqual([
      { name: 'API_TOKEN', path: 'headers.Authorization' },
      { name: 'DB_PASSWORD', path: 'body' },
      { name: 'API_TOKEN', path: 'tags[0]' },
    ]);
  });

  it('refuses a reference whose name cannot be a secret name', () => {
    expect(() => findSecretReferences({ body: 'x ${secret:} y' })).toThrow(
      "Malformed secret reference '${secret:}' in body",
    );
    expect(() => findSecretReferences('${secret:9lives}')).toThrow(InputError);
  });

  it('leaves text that only looks similar alone', () => {
    expect(findSecretReferences('${SECRET:X} $secret:X {secret:X}')).toEqual(
      [],
    );
  });
});

describe('ProbeSecrets', () => {
  it('reads healthcheck.secrets from the app config', () => {
    const fromConfig = ProbeSecrets.fromConfig(
      new ConfigReader({
        healthcheck: { secrets: { B_TOKEN: 'b', A_TOKEN: 'a' } },
      }),
    );
    expect(fromConfig.names()).toEqual(['A_TOKEN', 'B_TOKEN']);
    expect(fromConfig.resolve('${secret:A_TOKEN}${secret:B_TOKEN}')).toBe('ab');
    expect(ProbeSecrets.fromConfig(new ConfigReader({})).names()).toEqual([]);
  });

  it('substitutes every reference in a text', () => {
    expect(
      secrets.resolve('Bearer ${secret:API_TOKEN}, again ${secret:API_TOKEN}'),
    ).toBe('Bearer s3cr3t-token, again s3cr3t-token');
  });

  it('names an unknown secret and where it is used, at load', () => {
    expect(() =>
      secrets.assertKnownReferences({
        headers: { 'X-Key': '${secret:MISSING_KEY}' },
        body: '${secret:API_TOKEN}',
      }),
    ).toThrow(
      "Unknown secret 'MISSING_KEY' (in headers.X-Key): add it under healthcheck.secrets in the app config",
    );
    expect(() => secrets.resolve('${secret:NOPE}', 'send')).toThrow(
      "Unknown secret 'NOPE' (in send)",
    );
  });

  it('redacts every secret value, also URL-encoded and JSON-escaped', () => {
    const password = 'p@ss "word"/1';
    expect(
      secrets.redact(
        [
          'token=s3cr3t-token',
          `query=${encodeURIComponent(password)}`,
          `json=${JSON.stringify({ password })}`,
          `raw=${password}`,
        ].join(' '),
      ),
    ).toBe('token=*** query=*** json={"password":"***"} raw=***');
    expect(encodeURIComponent(password)).toBe('p%40ss%20%22word%22%2F1');
  });

  it('redacts the longer of two overlapping secrets whole', () => {
    const overlapping = new ProbeSecrets({ SHORT: 'abc', LONG: 'abcdef' });
    expect(overlapping.redact('xabcdefx abc')).toBe('x***x ***');
  });

  it('redacts every text of a probe result and leaves the rest', () => {
    expect(
      secrets.redactResult({
        ok: false,
        durationMs: 12,
        status: 401,
        body: '{"echo":"Bearer s3cr3t-token"}',
        dnsAnswers: ['s3cr3t-token.example.com'],
        error: { kind: 'other', message: 'rejected s3cr3t-token' },
      }),
    ).toEqual({
      ok: false,
      durationMs: 12,
      status: 401,
      body: '{"echo":"Bearer ***"}',
      dnsAnswers: ['***.example.com'],
      error: { kind: 'other', message: 'rejected ***' },
    });
  });

  it('ignores empty secret values when redacting', () => {
    expect(new ProbeSecrets({ EMPTY: '' }).redact('hello')).toBe('hello');
  });
});
