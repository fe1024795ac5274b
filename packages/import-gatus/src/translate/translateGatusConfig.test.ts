import { parse } from 'yaml';
import { importedHeartbeatGraceMs } from './endpointTranslation';
import { translateGatusConfig } from './translateGatusConfig';

const gatus = (text: string) => parse(text, { merge: true });

describe('translateGatusConfig', () => {
  it('turns an http endpoint into a HealthCheck with its url, interval and conditions as written', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - name: front-end
    group: core
    url: https://twin.sh/health
    interval: 5m
    conditions:
      - "[STATUS] == 200"
      - "[BODY].status == UP"
      - "[RESPONSE_TIME] < 150"
`),
    );
    expect(result.reported).toEqual([]);
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0].group).toBe('core');
    expect(result.checks[0].entity).toEqual({
      apiVersion: 'vigil.dev/v1alpha1',
      kind: 'HealthCheck',
      metadata: {
        name: 'front-end',
        title: 'front-end',
        description:
          'Imported from the Gatus endpoint "front-end" of group "core"',
        annotations: { 'vigil.dev/gatus-endpoint': 'core/front-end' },
      },
      spec: {
        type: 'http',
        target: 'https://twin.sh/health',
        interval: '5m',
        conditions: [
          '[STATUS] == 200',
          '[BODY].status == UP',
          '[RESPONSE_TIME] < 150',
        ],
        systems: ['core'],
      },
    });
  });

  it('maps groups to systems: named ones as given, others by their own name, no group to the default', async () => {
    const config = gatus(`
endpoints:
  - { name: a, group: core, url: "https://a.example.com", conditions: ["[STATUS] == 200"] }
  - { name: b, group: Internal Tools, url: "https://b.example.com", conditions: ["[STATUS] == 200"] }
  - { name: c, url: "https://c.example.com", conditions: ["[STATUS] == 200"] }
`);
    const mapped = await translateGatusConfig(config, {
      systems: { core: 'system:default/shop' },
      defaultSystem: 'misc',
      namespace: 'payments',
      owner: 'group:payments/team',
    });
    expect(
      mapped.checks.map(c => [c.entity.metadata.name, c.entity.spec.systems]),
    ).toEqual([
      ['a', ['system:default/shop']],
      ['b', ['internal-tools']],
      ['c', ['misc']],
    ]);
    expect(mapped.checks[0].entity.metadata.namespace).toBe('payments');
    expect(mapped.checks[0].entity.spec.owner).toBe('group:payments/team');
    expect(mapped.systems).toEqual([
      'internal-tools',
      'misc',
      'system:default/shop',
    ]);

    const unmapped = await translateGatusConfig(config);
    expect(unmapped.checks[2].entity.spec.systems).toEqual(['ungrouped']);
  });

  it('gives endpoints of the same name in two groups names with their group', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - { name: website, group: core, url: "https://a.example.com", conditions: ["[STATUS] == 200"] }
  - { name: website, group: other, url: "https://b.example.com", conditions: ["[STATUS] == 200"] }
  - { name: Random endpoint!, url: "https://c.example.com", conditions: ["[STATUS] == 200"] }
`),
    );
    expect(result.checks.map(c => c.entity.metadata.name)).toEqual([
      'core-website',
      'other-website',
      'random-endpoint',
    ]);
  });

  it('carries client timeout and insecure, method, headers and body, and turns ${ENV} into secret references', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - name: api
    url: https://api.example.com/graphql
    method: post
    graphql: true
    body: "{ user(id: $USER_ID) { id } }"
    headers:
      Authorization: "Bearer \${API_TOKEN}"
      X-Price: "$$5"
    interval: 30s
    client:
      timeout: 5s
      insecure: true
      ignore-redirect: true
    conditions: ["[STATUS] == 200"]
`),
    );
    expect(result.reported).toEqual([]);
    const { spec } = result.checks[0].entity;
    expect(spec.timeout).toBe('5s');
    expect(spec.config).toEqual({
      method: 'POST',
      headers: {
        Authorization: 'Bearer ${secret:API_TOKEN}',
        'X-Price': '$5',
        'Content-Type': 'application/json',
      },
      body: '{"query":"{ user(id: ${secret:USER_ID}) { id } }"}',
      followRedirects: false,
      tls: { insecureSkipVerify: true },
    });
    expect(result.secrets).toEqual([
      {
        name: 'API_TOKEN',
        allowedOrigins: ['https://api.example.com'],
        usedBy: ['api'],
      },
      {
        name: 'USER_ID',
        allowedOrigins: ['https://api.example.com'],
        usedBy: ['api'],
      },
    ]);
  });

  it('keeps a timeout within the interval and within 60s, saying so', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - { name: a, url: "https://a.example.com", interval: 10s, client: { timeout: 30s }, conditions: ["[STATUS] == 200"] }
  - { name: b, url: "https://b.example.com", interval: 5m, client: { timeout: 2m }, conditions: ["[STATUS] == 200"] }
`),
    );
    expect(result.checks.map(c => c.entity.spec.timeout)).toEqual([
      '10s',
      '60s',
    ]);
    expect(result.checks[0].notes).toContain(
      'client.timeout 30s is longer than the interval; imported as 10s, as a run must end before the next',
    );
  });

  it('translates dns, tcp and tls endpoints to the probe types of the same name', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - name: dns
    url: "8.8.8.8"
    dns: { query-name: example.com, query-type: MX }
    conditions: ["[DNS_RCODE] == NOERROR"]
  - name: redis
    url: tcp://redis.example.com:6379
    body: "AUTH \${REDIS_PASSWORD}"
    conditions: ["[CONNECTED] == true"]
  - name: ldaps
    url: tls://ldap.example.com:636
    client: { insecure: true, timeout: 5s }
    conditions: ["[CONNECTED] == true", "[CERTIFICATE_EXPIRATION] > 48h"]
`),
    );
    expect(result.reported).toEqual([]);
    expect(
      result.checks.map(({ entity: { spec } }) => [
        spec.type,
        spec.target,
        spec.config,
      ]),
    ).toEqual([
      ['dns', 'example.com', { server: '8.8.8.8', recordType: 'MX' }],
      [
        'tcp',
        'tcp://redis.example.com:6379',
        { send: 'AUTH ${secret:REDIS_PASSWORD}' },
      ],
      ['tls', 'tls://ldap.example.com:636', { insecureSkipVerify: true }],
    ]);
    expect(result.secrets).toEqual([
      {
        name: 'REDIS_PASSWORD',
        allowedOrigins: ['tcp://redis.example.com:6379'],
        usedBy: ['redis'],
      },
    ]);
  });

  it('reports each endpoint it cannot translate, with the reason', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - { name: ping, url: "icmp://example.org", conditions: ["[CONNECTED] == true"] }
  - { name: ssh, url: "ssh://example.com:22", ssh: { username: u }, conditions: ["[CONNECTED] == true"] }
  - { name: grpc, url: "grpc://localhost:50051", conditions: ["[CONNECTED] == true"] }
  - { name: domain, url: "https://example.org", conditions: ["[DOMAIN_EXPIRATION] > 720h"] }
  - { name: mtls, url: "https://example.org", client: { tls: { certificate-file: /c.pem } }, conditions: ["[STATUS] == 200"] }
  - { name: secret-url, url: "https://\${HOST}/health", conditions: ["[STATUS] == 200"] }
  - { name: no-conditions, url: "https://example.org" }
  - { name: ptr, url: "8.8.8.8", dns: { query-name: example.com, query-type: PTR }, conditions: ["[DNS_RCODE] == NOERROR"] }
external-endpoints:
  - { name: job, group: batch, token: potato }
`),
    );
    expect(result.checks).toEqual([]);
    expect(
      result.reported.map(r => [r.endpoint, r.section, r.reasons]),
    ).toEqual([
      [
        'ping',
        'endpoints',
        ['ICMP (ping) endpoints: Vigil has no ICMP probe type'],
      ],
      ['ssh', 'endpoints', ['SSH endpoints: Vigil has no SSH probe type']],
      [
        'grpc',
        'endpoints',
        ['gRPC endpoints: Vigil has no gRPC health probe type'],
      ],
      [
        'mtls',
        'endpoints',
        ['client.tls: Vigil probes present no client certificate (mTLS)'],
      ],
      [
        'secret-url',
        'endpoints',
        [
          'url reads environment variables (HOST): a Vigil target is written out in the entity and cannot hold a secret',
        ],
      ],
      [
        'no-conditions',
        'endpoints',
        ['has no conditions (Gatus requires at least one)'],
      ],
      [
        'ptr',
        'endpoints',
        [
          `dns.query-type "PTR": Vigil's dns probe asks for A, AAAA, CNAME, MX, TXT, NS, SRV`,
        ],
      ],
      [
        'batch/job',
        'external-endpoints',
        [
          'an external endpoint without heartbeat.interval expects no push by any time; a Vigil heartbeat check needs a period (give the endpoint heartbeat.interval to import it)',
        ],
      ],
      // Reported by validation, after the others.
      [
        'domain',
        'endpoints',
        [
          'not valid in Vigil: spec.conditions[0]: "[DOMAIN_EXPIRATION] > 720h", at position 0: [DOMAIN_EXPIRATION] is a Gatus placeholder that Vigil does not offer',
        ],
      ],
    ]);
    expect(result.endpointCount).toBe(9);
  });

  it("turns alert thresholds into the check's, the most eager alert winning, and notes the providers", async () => {
    const result = await translateGatusConfig(
      gatus(`
alerting:
  slack:
    webhook-url: https://hooks.slack.com/x
    default-alert: { success-threshold: 4 }
endpoints:
  - name: example
    url: https://example.org
    conditions: ["[STATUS] == 200"]
    alerts:
      - { type: slack, failure-threshold: 10 }
      - { type: slack, failure-threshold: 5 }
      - { type: pagerduty, failure-threshold: 1, enabled: false }
`),
      { owner: 'group:default/web' },
    );
    expect(result.checks[0].entity.spec.thresholds).toEqual({
      failure: 5,
      success: 4,
    });
    expect(result.checks[0].notes).toEqual([
      "alerts (slack, pagerduty): alert providers are not imported; Vigil notifies the system's owner through Backstage notifications, with the alerts' thresholds as the check's",
    ]);
    expect(result.notes).toEqual([
      "alerting (slack): alert providers are not imported; Vigil notifies each system's owner through Backstage notifications",
    ]);
  });

  it("notes maintenance, Gatus's own settings and unknown keys for the operator", async () => {
    const result = await translateGatusConfig(
      gatus(`
maintenance:
  start: "23:00"
  duration: 1h
  timezone: Europe/Amsterdam
  every: [Monday, Thursday]
storage: { type: sqlite, path: /data/data.db }
default-endpoint: { interval: 5m }
`),
    );
    expect(result.notes).toEqual([
      "storage: Gatus's own settings; nothing to import",
      'default-endpoint: not a Gatus setting this importer knows; ignored',
      'maintenance: no check was imported for it to cover; not imported',
    ]);
    expect(result.endpointCount).toBe(0);
  });

  it("makes Gatus's maintenance a MaintenanceWindow over every imported check's system, and an endpoint's maintenance-windows windows over that check, each of the checks' owner", async () => {
    const result = await translateGatusConfig(
      gatus(`
maintenance:
  start: "23:00"
  duration: 1h
  timezone: Europe/Amsterdam
  every: [Thursday, Monday]
endpoints:
  - name: api
    group: core
    url: https://api.example.com/health
    conditions: ["[STATUS] == 200"]
    maintenance-windows:
      - { start: "02:30", duration: 90m }
      - { start: "25:00", duration: 1h }
  - { name: web, url: "https://web.example.com", conditions: ["[STATUS] == 200"] }
`),
      { owner: 'group:default/web' },
    );
    expect(result.maintenanceWindows.map(w => [w.endpoint, w.entity])).toEqual([
      [
        'core/api',
        {
          apiVersion: 'vigil.dev/v1alpha1',
          kind: 'MaintenanceWindow',
          metadata: {
            name: 'api-maintenance-1',
            description: "Imported from Gatus's maintenance-windows[0]",
          },
          spec: {
            checks: ['api'],
            timezone: 'UTC',
            cron: '30 2 * * *',
            duration: '1h30m',
            reason: 'Gatus maintenance of the endpoint "core/api"',
            owner: 'group:default/web',
          },
        },
      ],
      [
        undefined,
        {
          apiVersion: 'vigil.dev/v1alpha1',
          kind: 'MaintenanceWindow',
          metadata: {
            name: 'gatus-maintenance',
            description: "Imported from Gatus's maintenance",
          },
          spec: {
            systems: ['core', 'ungrouped'],
            timezone: 'Europe/Amsterdam',
            cron: '0 23 * * 1,4',
            duration: '1h',
            reason: 'Gatus maintenance, over every endpoint',
            owner: 'group:default/web',
          },
        },
      ],
    ]);
    expect(result.checks[0].notes).toEqual([
      'maintenance-windows[0]: imported as the MaintenanceWindow api-maintenance-1',
      'maintenance-windows[1].start: "25:00" is not a time of day such as 23:00; not imported',
    ]);
    expect(result.notes).toContain(
      'maintenance: imported as the MaintenanceWindow gatus-maintenance over 2 system(s): notifications held, statuses still shown',
    );
  });

  it('skips a maintenance window Gatus has disabled or that cannot be read, saying why', async () => {
    const endpoint = `
endpoints:
  - { name: a, url: "https://a.example.com", conditions: ["[STATUS] == 200"] }
`;
    const notesOf = async (maintenance: string) =>
      (
        await translateGatusConfig(
          gatus(`maintenance: ${maintenance}${endpoint}`),
          {
            owner: 'group:default/web',
          },
        )
      ).notes;
    expect(
      await notesOf('{ enabled: false, start: "23:00", duration: 1h }'),
    ).toEqual(['maintenance: disabled (enabled: false); not imported']);
    expect(await notesOf('{ duration: 1h, every: [Funday] }')).toEqual([
      'maintenance.start: is required: the time of day the window starts, such as 23:00; not imported',
      'maintenance.every: "Funday" is not a day of the week such as Monday; not imported',
    ]);
    expect(
      await notesOf('{ start: "23:00", duration: 1h, timezone: Mars/Olympus }'),
    ).toEqual([
      expect.stringMatching(
        /^maintenance: not valid in Vigil: spec\.timezone: "Mars\/Olympus" is not an IANA time zone.*; not imported$/,
      ),
    ]);
  });

  it('says that checks without an owner monitor nothing by default', async () => {
    const config = gatus(`
endpoints:
  - { name: a, url: "https://a.example.com", conditions: ["[STATUS] == 200"] }
`);
    expect((await translateGatusConfig(config)).notes).toEqual([
      'no owner given (--owner): a HealthCheck entity monitors only systems its spec.owner owns, unless healthcheck.checks.fromCatalog is any',
    ]);
    expect(
      (await translateGatusConfig(config, { owner: 'group:default/web' }))
        .notes,
    ).toEqual([]);
  });

  it('imports a disabled endpoint paused, and reports a second endpoint with the same group and name', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - { name: a, url: "https://a.example.com", enabled: false, conditions: ["[STATUS] == 200"] }
  - { name: a, url: "https://b.example.com", conditions: ["[STATUS] == 200"] }
`),
    );
    expect(result.checks[0].entity.spec.paused).toBe(true);
    expect(result.reported).toEqual([
      {
        endpoint: 'a',
        section: 'endpoints',
        reasons: [
          'another endpoint has the same group and name (Gatus refuses this too)',
        ],
      },
    ]);
  });

  it('keeps extra-labels that are valid entity labels, and notes the others', async () => {
    const result = await translateGatusConfig(
      gatus(`
endpoints:
  - name: a
    url: https://a.example.com
    conditions: ["[STATUS] == 200"]
    extra-labels: { environment: staging, "bad key!": x }
`),
      { owner: 'group:default/web' },
    );
    expect(result.checks[0].entity.metadata.labels).toEqual({
      environment: 'staging',
    });
    expect(result.checks[0].notes).toEqual([
      'extra-labels.bad key!: not a valid entity label; left out ("x")',
    ]);
  });

  it('reports the endpoints of suites, one by one', async () => {
    const result = await translateGatusConfig(
      gatus(`
suites:
  - name: checkout
    endpoints:
      - { name: login, url: "https://shop.example.com/login", conditions: ["[STATUS] == 200"] }
      - { name: pay, url: "https://shop.example.com/pay", conditions: ["[STATUS] == 200"] }
`),
    );
    expect(result.endpointCount).toBe(2);
    expect(result.reported.map(r => [r.endpoint, r.section])).toEqual([
      ['checkout: login', 'suites'],
      ['checkout: pay', 'suites'],
    ]);
  });

  it('turns an external endpoint with a heartbeat interval into a heartbeat check', async () => {
    const result = await translateGatusConfig(
      gatus(`
external-endpoints:
  - name: nightly-export
    group: data
    token: potato
    heartbeat:
      interval: 30m
    alerts:
      - { type: slack, failure-threshold: 2 }
  - { name: too-often, heartbeat: { interval: 2s } }
  - { name: sometimes, heartbeat: { interval: soon } }
`),
      { owner: 'group:default/data' },
    );
    expect(result.checks.map(check => check.entity.spec)).toEqual([
      {
        type: 'heartbeat',
        period: '30m',
        grace: '3m',
        thresholds: { failure: 2, success: 2 },
        systems: ['data'],
        owner: 'group:default/data',
      },
    ]);
    expect(result.checks[0].entity.metadata.description).toBe(
      'Imported from the Gatus external endpoint "nightly-export" of group "data"',
    );
    expect(result.checks[0].notes).toEqual([
      "heartbeat: a heartbeat check, pinged at its Vigil ping URL instead of Gatus's /api/v1/endpoints/{key}/external; it fails 3m (its grace) after Gatus would",
      'token: not imported; Vigil makes a ping token per slice (POST /v1/checks/{id}/heartbeat/tokens)',
      "alerts (slack): alert providers are not imported; Vigil notifies the system's owner through Backstage notifications, with the alerts' thresholds as the check's",
    ]);
    expect(
      result.reported.map(r => [r.endpoint, r.section, r.reasons]),
    ).toEqual([
      [
        'sometimes',
        'external-endpoints',
        ['heartbeat.interval: "soon" is not a duration'],
      ],
      [
        'too-often',
        'external-endpoints',
        [
          'not valid in Vigil: spec.period: 2s is below the shortest period, 5s',
        ],
      ],
    ]);
  });
});

describe('importedHeartbeatGraceMs', () => {
  it('is a tenth of the interval in whole seconds, within [1s, 1h]', () => {
    expect(importedHeartbeatGraceMs(30 * 60_000)).toBe(180_000);
    expect(importedHeartbeatGraceMs(5_000)).toBe(1_000);
    expect(importedHeartbeatGraceMs(48 * 3_600_000)).toBe(3_600_000);
  });
});
