import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import type { JsonObject } from '@backstage/types';
import { InputError } from '@backstage/errors';
import {
  findSecretReferences,
  ProbeSecrets,
  type ProbeSecretDefinition,
  targetOrigin,
} from './secrets';

const secrets = new ProbeSecrets({
  API_TOKEN: 's3cr3t-token',
  DB_PASSWORD: 'p@ss "word"/1',
});

/** Secrets as a portal with several teams declares them. */
const portalSecrets = new ProbeSecrets({
  PAYMENTS_TOKEN: {
    value: 'pay-t0ken-value',
    allowedOrigins: ['https://api.payments.example.com'],
    allowedNamespaces: ['payments'],
  },
  STATUS_KEY: {
    value: 'status-key-value',
    allowedOrigins: ['https://*.status.example.com:8443'],
  },
  REDIS_PASSWORD: {
    value: 'redis-pw-value',
    allowedOrigins: ['tcp://redis.example.com:6379'],
  },
  PUBLIC_KEY: { value: 'anywhere-value', allowedOrigins: ['*'] },
});

function secretsFrom(definitions: JsonObject): ProbeSecrets {
  return ProbeSecrets.fromConfig(
    new ConfigReader({ healthcheck: { secrets: definitions } }),
  );
}

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

describe('targetOrigin', () => {
  it.each<[string, string, string | undefined]>([
    [
      'http',
      'https://API.Example.com/health?x=1',
      'https://api.example.com:443',
    ],
    ['http', 'http://api.example.com/', 'http://api.example.com:80'],
    ['http', 'https://api.example.com:8443/', 'https://api.example.com:8443'],
    ['http', 'https://user:pw@api.example.com/', 'https://api.example.com:443'],
    ['http', 'http://[::1]:8080/', 'http://[::1]:8080'],
    ['tcp', 'db.example.com:5432', 'tcp://db.example.com:5432'],
    ['tcp', 'tcp://DB.example.com:5432', 'tcp://db.example.com:5432'],
    ['tcp', '[::1]:6379', 'tcp://[::1]:6379'],
    ['tls', 'tls://mail.example.com', 'tcp://mail.example.com:443'],
    ['tls', 'mail.example.com:465', 'tcp://mail.example.com:465'],
    // No origin: a target that does not parse, a type that sends nothing.
    ['http', 'ftp://files.example.com/', undefined],
    ['http', 'not a url', undefined],
    ['tcp', 'db.example.com', undefined],
    ['dns', 'example.com', undefined],
    ['grpc', 'grpc://api.example.com:443', undefined],
  ])('%s %j sends to %j', (type, target, origin) => {
    expect(targetOrigin(type, target)).toBe(origin);
  });
});

describe('ProbeSecrets', () => {
  describe('configuration', () => {
    it('reads { value, allowedOrigins, allowedNamespaces } entries', () => {
      const fromConfig = secretsFrom({
        B_TOKEN: { value: 'b', allowedOrigins: ['https://b.example.com'] },
        A_TOKEN: {
          value: 'a',
          allowedOrigins: ['*'],
          allowedNamespaces: ['Team-A'],
        },
      });
      expect(fromConfig.names()).toEqual(['A_TOKEN', 'B_TOKEN']);
      expect(
        fromConfig.resolve('${secret:B_TOKEN}', {
          path: 'body',
          origin: 'https://b.example.com:443',
        }),
      ).toBe('b');
      expect(
        fromConfig.findUseProblems('${secret:A_TOKEN}', {
          origin: 'http://anything.example.org:80',
          namespace: 'team-a',
        }),
      ).toEqual([]);
      expect(ProbeSecrets.fromConfig(new ConfigReader({})).names()).toEqual([]);
    });

    it('still reads a plain value, which goes anywhere, and warns at start naming the secret but never its value', () => {
      const logger = mockServices.logger.mock();
      const legacy = ProbeSecrets.fromConfig(
        new ConfigReader({
          healthcheck: {
            secrets: {
              LEGACY_TOKEN: 'legacy-value',
              NEW_TOKEN: { value: 'new-value', allowedOrigins: ['*'] },
            },
          },
        }),
        { logger },
      );

      expect(logger.warn).toHaveBeenCalledTimes(1);
      const [warning] = logger.warn.mock.calls[0];
      expect(warning).toContain('healthcheck.secrets.LEGACY_TOKEN');
      expect(warning).toContain('deprecated');
      expect(warning).not.toContain('legacy-value');
      expect(
        legacy.findUseProblems('${secret:LEGACY_TOKEN}', {
          origin: 'http://elsewhere.example.org:80',
          namespace: 'any',
        }),
      ).toEqual([]);
    });

    it.each<[string, JsonObject[string], string]>([
      [
        'a missing value',
        { allowedOrigins: ['*'] },
        'healthcheck.secrets.TOKEN.value is missing',
      ],
      [
        'missing allowedOrigins',
        { value: 'v' },
        "healthcheck.secrets.TOKEN.allowedOrigins is missing or empty: list the origins the secret may be sent to, such as ['https://api.example.com'], or ['*'] for anywhere",
      ],
      [
        'empty allowedOrigins',
        { value: 'v', allowedOrigins: [] },
        'healthcheck.secrets.TOKEN.allowedOrigins is missing or empty',
      ],
      [
        'an origin with a path',
        { value: 'v', allowedOrigins: ['https://api.example.com/v1'] },
        "healthcheck.secrets.TOKEN.allowedOrigins[0]: 'https://api.example.com/v1' is not an origin",
      ],
      [
        'an origin of another scheme',
        { value: 'v', allowedOrigins: ['*', 'ftp://files.example.com'] },
        "healthcheck.secrets.TOKEN.allowedOrigins: '*' allows every origin, so it stands alone",
      ],
      [
        'a bare host',
        { value: 'v', allowedOrigins: ['api.example.com'] },
        "healthcheck.secrets.TOKEN.allowedOrigins[0]: 'api.example.com' is not an origin: write http://host, https://host or tcp://host:port",
      ],
      [
        'a tcp origin without a port',
        {
          value: 'v',
          allowedOrigins: ['https://ok.example.com', 'tcp://db.example.com'],
        },
        "healthcheck.secrets.TOKEN.allowedOrigins[1]: 'tcp://db.example.com' needs a port",
      ],
      [
        'a port out of range',
        { value: 'v', allowedOrigins: ['https://api.example.com:70000'] },
        'has port 70000, outside 1-65535',
      ],
      [
        'a wildcard inside a name',
        { value: 'v', allowedOrigins: ['https://api-*.example.com'] },
        "healthcheck.secrets.TOKEN.allowedOrigins[0]: 'https://api-*.example.com' has '*' where only a whole leading label may be one",
      ],
      [
        'a wildcard over a top-level domain',
        { value: 'v', allowedOrigins: ['https://*.com'] },
        "'*.' must precede a domain name of at least two labels",
      ],
      [
        'a wildcard over an address',
        { value: 'v', allowedOrigins: ['https://*.10.0.0.1'] },
        "'*.' must precede a domain name of at least two labels",
      ],
      [
        'a misspelt field, which would otherwise widen the secret',
        { value: 'v', allowedOrigins: ['*'], allowedNamespace: ['team-a'] },
        "healthcheck.secrets.TOKEN: unknown field 'allowedNamespace'",
      ],
      [
        'empty allowedNamespaces',
        { value: 'v', allowedOrigins: ['*'], allowedNamespaces: [] },
        'healthcheck.secrets.TOKEN.allowedNamespaces is empty',
      ],
      [
        'a namespace that cannot be one',
        { value: 'v', allowedOrigins: ['*'], allowedNamespaces: ['team a'] },
        "healthcheck.secrets.TOKEN.allowedNamespaces[0]: 'team a' is not a catalog namespace",
      ],
      [
        'a list instead of an entry',
        ['v'],
        'healthcheck.secrets.TOKEN must be an object { value, allowedOrigins, allowedNamespaces? }',
      ],
    ])('fails at start on %s, naming the key', (_case, entry, message) => {
      expect(() => secretsFrom({ TOKEN: entry })).toThrow(InputError);
      expect(() => secretsFrom({ TOKEN: entry })).toThrow(message);
    });

    it('never puts the value into a configuration error', () => {
      let message = '';
      try {
        secretsFrom({
          TOKEN: { value: 'do-not-print', allowedOrigins: ['nope'] },
        });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('healthcheck.secrets.TOKEN.allowedOrigins[0]');
      expect(message).not.toContain('do-not-print');
    });

    it('refuses the same mistakes when built in code', () => {
      expect(
        () =>
          new ProbeSecrets({
            TOKEN: { value: 'v', allowedOrigins: 'https://a.example.com' },
          } as unknown as Record<string, ProbeSecretDefinition>),
      ).toThrow('healthcheck.secrets.TOKEN.allowedOrigins is missing or empty');
    });
  });

  describe('findUseProblems', () => {
    it('judges only names and namespaces while the origin waits for a slice', () => {
      expect(
        portalSecrets.findUseProblems(
          { headers: { Authorization: 'Bearer ${secret:PAYMENTS_TOKEN}' } },
          { origin: undefined, originPerSlice: true, namespace: 'payments' },
        ),
      ).toEqual([]);
      expect(
        portalSecrets.findUseProblems('${secret:PAYMENTS_TOKEN}', {
          origin: undefined,
          originPerSlice: true,
          namespace: 'marketing',
        }),
      ).toEqual([
        {
          path: '',
          configPath: [],
          reason:
            "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'marketing'",
        },
      ]);
    });

    it('allows a secret at an allowed origin, for an allowed namespace', () => {
      expect(
        portalSecrets.findUseProblems(
          { headers: { Authorization: 'Bearer ${secret:PAYMENTS_TOKEN}' } },
          {
            origin: 'https://api.payments.example.com:443',
            namespace: 'payments',
          },
        ),
      ).toEqual([]);
    });

    it('compares origins with default ports made explicit and hosts in lower case', () => {
      expect(
        portalSecrets.findUseProblems('${secret:PAYMENTS_TOKEN}', {
          origin: 'https://API.Payments.example.com',
          namespace: 'Payments',
        }),
      ).toEqual([]);
    });

    it('refuses an unknown name and a name not allowed in the namespace with one and the same message', () => {
      const unknown = portalSecrets.findUseProblems(
        { headers: { 'X-Key': '${secret:NO_SUCH_SECRET}' } },
        {
          origin: 'https://api.payments.example.com:443',
          namespace: 'marketing',
          path: 'spec.config',
        },
      );
      const otherTeams = portalSecrets.findUseProblems(
        { headers: { 'X-Key': '${secret:PAYMENTS_TOKEN}' } },
        {
          origin: 'https://api.payments.example.com:443',
          namespace: 'marketing',
          path: 'spec.config',
        },
      );

      expect(unknown).toEqual([
        {
          path: 'spec.config.headers.X-Key',
          configPath: ['headers', 'X-Key'],
          reason:
            "secret 'NO_SUCH_SECRET' is unknown, or not allowed for checks in namespace 'marketing'",
        },
      ]);
      expect(otherTeams).toEqual([
        {
          path: 'spec.config.headers.X-Key',
          configPath: ['headers', 'X-Key'],
          reason:
            "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'marketing'",
        },
      ]);
    });

    it('refuses a secret limited to namespaces for a check without one', () => {
      expect(
        portalSecrets.findUseProblems('${secret:PAYMENTS_TOKEN}', {
          origin: 'https://api.payments.example.com:443',
        }),
      ).toEqual([
        {
          path: '',
          configPath: [],
          reason:
            "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for this check",
        },
      ]);
    });

    it('refuses a secret aimed at an origin its allowedOrigins do not include, naming the origin', () => {
      const config = {
        headers: { Authorization: 'Bearer ${secret:PAYMENTS_TOKEN}' },
        body: '{"key":"${secret:PAYMENTS_TOKEN}"}',
      };
      const refusal = (origin: string) =>
        `secret 'PAYMENTS_TOKEN' may not be sent to ${origin}: its allowedOrigins do not include that origin`;

      for (const origin of [
        'https://attacker.example.net:443',
        // https only: neither plain http nor another port of the same host.
        'http://api.payments.example.com:80',
        'https://api.payments.example.com:8443',
        // Not a suffix match.
        'https://api.payments.example.com.attacker.net:443',
      ]) {
        expect(
          portalSecrets.findUseProblems(config, {
            origin,
            namespace: 'payments',
          }),
        ).toEqual([
          {
            path: 'headers.Authorization',
            configPath: ['headers', 'Authorization'],
            reason: refusal(origin),
          },
          { path: 'body', configPath: ['body'], reason: refusal(origin) },
        ]);
      }
    });

    it('lets a leading wildcard stand for exactly one label, at its own scheme and port', () => {
      const problemsAt = (origin: string) =>
        portalSecrets.findUseProblems('${secret:STATUS_KEY}', {
          origin,
          namespace: 'default',
        }).length;

      expect(problemsAt('https://eu.status.example.com:8443')).toBe(0);
      expect(problemsAt('https://US.status.example.com:8443')).toBe(0);
      expect(problemsAt('https://status.example.com:8443')).toBe(1);
      expect(problemsAt('https://a.b.status.example.com:8443')).toBe(1);
      expect(problemsAt('https://eu.status.example.com:443')).toBe(1);
      expect(problemsAt('http://eu.status.example.com:8443')).toBe(1);
      expect(problemsAt('https://evilstatus.example.com:8443')).toBe(1);
    });

    it('binds tcp secrets to host and port', () => {
      const problemsAt = (origin: string) =>
        portalSecrets.findUseProblems(
          { send: 'AUTH ${secret:REDIS_PASSWORD}\r\n' },
          { origin },
        );

      expect(
        problemsAt(targetOrigin('tcp', 'redis.example.com:6379')!),
      ).toEqual([]);
      expect(problemsAt('tcp://redis.example.com:6380')).toEqual([
        {
          path: 'send',
          configPath: ['send'],
          reason:
            "secret 'REDIS_PASSWORD' may not be sent to tcp://redis.example.com:6380: its allowedOrigins do not include that origin",
        },
      ]);
      // An https origin on the same host and port is another destination.
      expect(problemsAt('https://redis.example.com:6379')).toHaveLength(1);
    });

    it("lets '*' go anywhere, also where the target has no origin", () => {
      expect(
        portalSecrets.findUseProblems('${secret:PUBLIC_KEY}', {
          origin: undefined,
        }),
      ).toEqual([]);
    });

    it('refuses a bound secret where the target has no origin', () => {
      expect(
        portalSecrets.findUseProblems('${secret:REDIS_PASSWORD}', {
          origin: targetOrigin('dns', 'example.com'),
        }),
      ).toEqual([
        {
          path: '',
          configPath: [],
          reason:
            "secret 'REDIS_PASSWORD' may be sent only to its allowedOrigins, and this check's target has no origin to compare with them",
        },
      ]);
    });

    it('reports a malformed reference at its field instead of throwing', () => {
      expect(
        portalSecrets.findUseProblems(
          { body: '${secret:} and ${secret:PUBLIC_KEY}' },
          { origin: 'https://a.example.com:443', path: 'spec.config' },
        ),
      ).toEqual([
        {
          path: 'spec.config.body',
          configPath: ['body'],
          reason:
            "malformed secret reference '${secret:}': a secret name starts with a letter or '_' and holds letters, digits, '_', '.' and '-'",
        },
      ]);
    });

    it('reports each problem of a field once', () => {
      expect(
        portalSecrets.findUseProblems(
          { body: '${secret:NOPE} ${secret:NOPE}' },
          { origin: 'https://a.example.com:443', namespace: 'x' },
        ),
      ).toHaveLength(1);
    });
  });

  describe('resolve', () => {
    it('substitutes every reference in a text', () => {
      expect(
        secrets.resolve(
          'Bearer ${secret:API_TOKEN}, again ${secret:API_TOKEN}',
          {
            path: 'headers.Authorization',
            origin: 'https://a.example.com:443',
          },
        ),
      ).toBe('Bearer s3cr3t-token, again s3cr3t-token');
    });

    it('refuses, at run time, to resolve a secret for an origin it may not go to', () => {
      expect(() =>
        portalSecrets.resolve('Bearer ${secret:PAYMENTS_TOKEN}', {
          path: 'headers.Authorization',
          origin: 'http://127.0.0.1:8080',
        }),
      ).toThrow(
        new InputError(
          "headers.Authorization: secret 'PAYMENTS_TOKEN' may not be sent to http://127.0.0.1:8080: its allowedOrigins do not include that origin",
        ),
      );
      expect(
        portalSecrets.resolve('AUTH ${secret:REDIS_PASSWORD}', {
          path: 'send',
          origin: 'tcp://redis.example.com:6379',
        }),
      ).toBe('AUTH redis-pw-value');
    });

    it('refuses an unknown secret without telling which exist', () => {
      expect(() =>
        secrets.resolve('${secret:NOPE}', {
          path: 'send',
          origin: 'tcp://a.example.com:1',
        }),
      ).toThrow(
        "send: secret 'NOPE' is unknown, or not allowed for this check",
      );
    });
  });

  describe('redact', () => {
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
            message: `rejected ${Buffer.from('s3cr3t-token').toString(
              'base64',
            )}`,
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
});
