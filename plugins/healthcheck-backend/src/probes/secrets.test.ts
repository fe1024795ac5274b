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

  it('redacts a secret inside Basic auth, whatever its offset in the base64', () => {
    for (const user of ['', 'a', 'ab', 'abc', 'app', 'service-account']) {
      const basic = Buffer.from(`${user}:s3cr3t-token`).toString('base64');
      const urlSafe = Buffer.from(`${user}?s3cr3t-token~~`).toString(
        'base64url',
      );
      const redacted = secrets.redact(
        `Authorization: Basic ${basic} ${urlSafe}`,
      );

      expect(redacted).toContain('***');
      // What is left of either encoding decodes to no part of the secret
      // longer than one character and a few bits.
      for (const word of redacted.split(/[\s*]+/)) {
        const decoded = Buffer.from(word, 'base64').toString('latin1');
        expect(decoded).not.toMatch(/s3cr|cr3t|3t-t|toke|oken/);
      }
    }
  });

  it('redacts hex, HTML-escaped and re-cased echoes', () => {
    const hex = Buffer.from('s3cr3t-token').toString('hex');
    const password = 'p@ss "word"/1';
    expect(
      secrets.redact(
        [
          hex,
          hex.toUpperCase(),
          'S3CR3T-TOKEN',
          'p@ss &quot;word&quot;/1',
          'p@ss &#34;word&#34;/1',
          password.toUpperCase(),
        ].join(' | '),
      ),
    ).toBe('*** | *** | *** | *** | *** | ***');
  });

  it('does not redact derived forms of a short secret, which would blank common text', () => {
    const short = new ProbeSecrets({ PIN: 'ab' });
    expect(short.redact('ab AB YWI= 6162')).toBe('*** AB YWI= 6162');
  });

  it('redacts the longer of two overlapping secrets whole', () => {
    const overlapping = new ProbeSecrets({ SHORT: 'abc', LONG: 'abcdef' });
    expect(overlapping.redact('xabcdefx abc')).toBe('x***x ***');
  });

  it('redacts a 1 MiB body with 20 secrets in linear time', () => {
    const many = new ProbeSecrets(
      Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [
          `TOKEN_${i}`,
          `token-${i}-${'x'.repeat(20)}`,
        ]),
      ),
    );
    // Near misses everywhere: every token's first 20 characters, over and
    // over, which a search that restarts at each character pays for
    // again and again.
    const body = `${'token-1-'.padEnd(27, 'x')}y `.repeat(
      Math.ceil((1024 * 1024) / 29),
    );

    const started = performance.now();
    const redacted = many.redact(`${body}token-7-${'x'.repeat(20)}`);
    const elapsedMs = performance.now() - started;

    expect(redacted.endsWith(' ***')).toBe(true);
    // About 10 ms on a laptop; a quadratic search would take minutes.
    expect(elapsedMs).toBeLessThan(2_000);
  });

  it('redacts every text of a probe result and leaves the rest', () => {
    expect(
      secrets.redactResult({
        ok: false,
        durationMs: 12,
        status: 401,
        body: '{"echo":"Bearer s3cr3t-token"}',
        dnsAnswers: ['s3cr3t-token.example.com'],
        error: {
          kind: 'other',
          message: `rejected ${Buffer.from('s3cr3t-token').toString('base64')}`,
        },
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
