import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Entity } from '@backstage/catalog-model';
import { JsonObject } from '@backstage/types';
import { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import { ConfigReader } from '@backstage/config';
import { HealthCheckEntityProcessor } from './HealthCheckEntityProcessor';
import { catalogProbeTypes } from './catalogProbeTypes';

const location = { type: 'file', target: '/demo/checks.yaml' };

function healthCheck(spec: JsonObject): Entity {
  return {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name: 'payments-api', namespace: 'default' },
    spec,
  };
}

const validSpec = {
  type: 'http',
  target: 'http://127.0.0.1:7010/{{ environment.name }}/payments/health',
  interval: '10s',
  timeout: '2s',
  conditions: [
    '[STATUS] == 200',
    { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' },
  ],
  thresholds: { failure: 2, success: 1 },
  systems: ['system:default/payments', 'checkout'],
  owner: 'payments-team',
};

const processor = new HealthCheckEntityProcessor({
  probeTypes: catalogProbeTypes(new ConfigReader({})),
});

/** The processing error of a spec, or `undefined` when it is accepted. */
async function rejection(
  spec: JsonObject,
  p = processor,
): Promise<string | undefined> {
  try {
    await p.validateEntityKind(healthCheck(spec));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('HealthCheckEntityProcessor', () => {
  it('accepts a well-formed HealthCheck', async () => {
    await expect(
      processor.validateEntityKind(healthCheck(validSpec)),
    ).resolves.toBe(true);
  });

  it('accepts the smallest HealthCheck: type, target and systems', async () => {
    expect(
      await rejection({
        type: 'tcp',
        target: 'tcp://db:5432',
        systems: ['payments'],
      }),
    ).toBeUndefined();
  });

  it('accepts environment overrides, probe config and an environment filter', async () => {
    expect(
      await rejection({
        ...validSpec,
        config: { method: 'GET', headers: { Accept: 'application/json' } },
        environments: ['production', 'staging'],
        environmentOverrides: {
          staging: {
            target: 'https://{{ system.name }}.staging.example.com/health',
            config: { headers: { Authorization: '${secret:STAGING_TOKEN}' } },
          },
          'EU-West': { target: 'https://eu.example.com/health' },
        },
        paused: true,
      }),
    ).toBeUndefined();
  });

  it('accepts every HealthCheck of the demo catalog', async () => {
    const folder = path.resolve(__dirname, '../../../demo/catalog/checks');
    const checks = fs
      .readdirSync(folder)
      .flatMap(file =>
        parseAllDocuments(fs.readFileSync(path.join(folder, file), 'utf8')).map(
          document => document.toJS() as Entity,
        ),
      )
      .filter(entity => entity.kind === 'HealthCheck');
    expect(checks).toHaveLength(10);
    for (const entity of checks) {
      await expect(processor.validateEntityKind(entity)).resolves.toBe(true);
    }
  });

  it('leaves other kinds to other processors', async () => {
    await expect(
      processor.validateEntityKind({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: { name: 'x' },
      }),
    ).resolves.toBe(false);
  });

  describe('rejects, naming the entity, the field and the reason', () => {
    it('an unknown probe type, listing the known ones', async () => {
      expect(await rejection({ ...validSpec, type: 'htp' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.type: unknown probe type "htp"; the known types are dns, http, tcp, tls`,
      );
    });

    it("config outside its probe type's bounds, as the API would", async () => {
      expect(
        await rejection({
          ...validSpec,
          config: { maxBodyBytes: 4_000_000_000 },
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.config.maxBodyBytes: must be <= 16777216`,
      );
      expect(
        await rejection({
          ...validSpec,
          environmentOverrides: { production: { config: { method: 'get' } } },
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.environmentOverrides.production.config.method: must match pattern "^[A-Z][A-Z-]*$"`,
      );
    });

    it('a tcp pattern that cannot run in linear time', async () => {
      expect(
        await rejection({
          ...validSpec,
          type: 'tcp',
          target: 'db.example.com:5432',
          conditions: [],
          config: { expect: '/(a)\\1/' },
        }),
      ).toContain(
        `spec.config.expect: Pattern /(a)\\1/ is not a valid regular expression in RE2's linear-time syntax`,
      );
    });

    it('a duration that does not parse', async () => {
      expect(await rejection({ ...validSpec, interval: '10 seconds' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.interval: "10 seconds" is not a duration: "10" at position 0 has no unit (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)`,
      );
      expect(await rejection({ ...validSpec, timeout: '2x' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.timeout: "2x" is not a duration: unknown unit "x" at position 1 (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)`,
      );
    });

    it('an interval below the configured minimum', async () => {
      expect(
        await rejection({ ...validSpec, interval: '1s', timeout: '500ms' }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.interval: 1s is below the minimum interval of 5s`,
      );
      const strict = new HealthCheckEntityProcessor({ minIntervalMs: 30_000 });
      expect(await rejection(validSpec, strict)).toBe(
        `Invalid HealthCheck 'payments-api': spec.interval: 10s is below the minimum interval of 30s`,
      );
      const lenient = new HealthCheckEntityProcessor({ minIntervalMs: 500 });
      expect(
        await rejection(
          { ...validSpec, interval: '1s', timeout: '500ms' },
          lenient,
        ),
      ).toBe(undefined);
    });

    it('a default interval below the configured minimum', async () => {
      const { interval, ...withoutInterval } = validSpec;
      const strict = new HealthCheckEntityProcessor({
        minIntervalMs: 120_000,
      });
      expect(await rejection(withoutInterval, strict)).toBe(
        `Invalid HealthCheck 'payments-api': spec.interval: 1m is below the minimum interval of 2m (it is the default)`,
      );
    });

    it('a timeout of zero', async () => {
      expect(await rejection({ ...validSpec, timeout: '0s' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.timeout: must be longer than 0s`,
      );
    });

    it('an unknown field, listing the fields', async () => {
      expect(await rejection({ ...validSpec, intervall: '10s' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.intervall: unknown field; the fields here are type, target, config, environmentOverrides, interval, timeout, conditions, thresholds, systems, components, environments, paused, owner, period, schedule, timezone, grace`,
      );
    });

    it('an unknown field inside an environment override', async () => {
      expect(
        await rejection({
          ...validSpec,
          environmentOverrides: { 'eu west': { url: 'http://x' } },
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api', 2 problems:
- spec.environmentOverrides["eu west"].url: unknown field; the fields here are target, config
- spec.environmentOverrides["eu west"]: "eu west" is not an environment name: " " is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case`,
      );
    });

    it('a missing target', async () => {
      const { target, ...withoutTarget } = validSpec;
      expect(await rejection(withoutTarget)).toBe(
        `Invalid HealthCheck 'payments-api': spec.target: is required: what to probe, such as https://{{ system.name }}.example.com/health`,
      );
    });

    it('an empty target', async () => {
      expect(await rejection({ ...validSpec, target: '' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.target: must not be empty`,
      );
    });

    it('a target placeholder it does not know', async () => {
      expect(
        await rejection({ ...validSpec, target: 'http://{{ env.name }}/x' }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.target: unknown placeholder "{{ env.name }}" at position 7; use {{ system.name }} or {{ environment.name }}`,
      );
    });

    it('a condition that does not parse, with its index and position', async () => {
      expect(
        await rejection({
          ...validSpec,
          conditions: ['[STATUS] == 200', '[STATUS] =! 200'],
        }),
      ).toMatch(
        /^Invalid HealthCheck 'payments-api': spec\.conditions\[1\]: "\[STATUS\] =! 200", at position \d+: .+/,
      );
    });

    it('a condition object without its text, or with an unknown severity', async () => {
      expect(
        await rejection({
          ...validSpec,
          conditions: [
            { severity: 'degraded' },
            { condition: '[STATUS] == 200', severity: 'fatal' },
          ],
        }),
      ).toBe(
        [
          `Invalid HealthCheck 'payments-api', 2 problems:`,
          `- spec.conditions[0]: "", at position 0: an object condition needs a "condition" text`,
          `- spec.conditions[1]: "[STATUS] == 200", at position 0: severity is "unhealthy" or "degraded", not "fatal"`,
        ].join('\n'),
      );
    });

    it('a missing or empty list of systems', async () => {
      const { systems, ...withoutSystems } = validSpec;
      expect(await rejection(withoutSystems)).toBe(
        `Invalid HealthCheck 'payments-api': spec.systems: is required: the refs of the systems the check monitors`,
      );
      expect(await rejection({ ...validSpec, systems: [] })).toBe(
        `Invalid HealthCheck 'payments-api': spec.systems: must not be an empty list`,
      );
    });

    it('a system ref that is not a string, or not a system', async () => {
      expect(await rejection({ ...validSpec, systems: [42] })).toBe(
        `Invalid HealthCheck 'payments-api': spec.systems[0]: must be a string, not number 42`,
      );
      expect(
        await rejection({
          ...validSpec,
          systems: ['payments', 'component:default/payments-service'],
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.systems[1]: "component:default/payments-service" refers to a component; a check is assigned to systems`,
      );
    });

    it('a component ref that does not parse, or is not a component', async () => {
      expect(
        await rejection({
          ...validSpec,
          components: [
            'payments-service',
            'component:default/',
            'resource:default/payments-db',
            '',
          ],
        }),
      ).toBe(
        [
          `Invalid HealthCheck 'payments-api', 3 problems:`,
          `- spec.components[3]: must not be empty`,
          `- spec.components[1]: Entity reference "component:default/" was not on the form [<kind>:][<namespace>/]<name>`,
          `- spec.components[2]: "resource:default/payments-db" refers to a resource; a check targets components`,
        ].join('\n'),
      );
      expect(await rejection({ ...validSpec, components: 'payments' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.components: must be a list, not string "payments"`,
      );
    });

    it('a wrong type, saying what was found', async () => {
      expect(await rejection({ ...validSpec, paused: 'yes' })).toBe(
        `Invalid HealthCheck 'payments-api': spec.paused: must be true or false, not string "yes"`,
      );
    });

    it('thresholds that are not whole numbers of at least 1', async () => {
      expect(
        await rejection({
          ...validSpec,
          thresholds: { failure: 0, success: 1.5 },
        }),
      ).toBe(
        [
          `Invalid HealthCheck 'payments-api', 2 problems:`,
          `- spec.thresholds.failure: must be at least 1, not 0`,
          `- spec.thresholds.success: must be a whole number, not number 1.5`,
        ].join('\n'),
      );
    });

    it('an empty environment filter', async () => {
      expect(await rejection({ ...validSpec, environments: [] })).toBe(
        `Invalid HealthCheck 'payments-api': spec.environments: must not be an empty list`,
      );
    });

    it('two overrides of one environment spelled in different case', async () => {
      expect(
        await rejection({
          ...validSpec,
          environmentOverrides: {
            staging: { target: 'http://a' },
            Staging: { target: 'http://b' },
          },
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.environmentOverrides.staging: names the same environment as "Staging" (names are compared without regard to case); merge the two`,
      );
    });

    it('a spec that is not an object', async () => {
      await expect(
        processor.validateEntityKind({
          apiVersion: 'vigil.dev/v1alpha1',
          kind: 'HealthCheck',
          metadata: { name: 'payments-api' },
        }),
      ).rejects.toThrow(
        `Invalid HealthCheck 'payments-api': spec: must be an object, not undefined`,
      );
    });
  });

  describe("keeps other teams' values from deciding where a probe goes", () => {
    it('rejects a target whose host a placeholder picks, at the target and at each override', async () => {
      const problem = await rejection({
        ...validSpec,
        target: 'https://{{ system.name }}/health',
        environmentOverrides: {
          staging: { target: 'https://{{ environment.name }}.internal/x' },
        },
      });
      expect(problem).toMatch(
        /^Invalid HealthCheck 'payments-api', 2 problems:\n- spec\.target: the host "\{\{ system\.name \}\}" is picked by a placeholder, .*healthcheck\.targets\.allowPlaceholderHosts\)\n- spec\.environmentOverrides\.staging\.target: the host "\{\{ environment\.name \}\}\.internal" is picked by a placeholder, /,
      );
    });

    it('accepts such a target where an operator allows placeholder hosts', async () => {
      expect(
        await rejection(
          { ...validSpec, target: 'https://{{ system.name }}/health' },
          new HealthCheckEntityProcessor({ allowPlaceholderHosts: true }),
        ),
      ).toBeUndefined();
    });

    it('accepts a host that ends in labels of its own', async () => {
      expect(
        await rejection({
          ...validSpec,
          target: 'https://{{ environment.name }}.payments.example.com/health',
        }),
      ).toBeUndefined();
    });

    it('rejects a placeholder in the port of a tcp target', async () => {
      expect(
        await rejection({
          ...validSpec,
          type: 'tcp',
          target: 'db.example.com:{{ environment.name }}',
          conditions: [],
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api': spec.target: {{ environment.name }} at position 15 is in the port; write the port in the template`,
      );
    });

    it('rejects environment names that are not names, in the filter and as override keys', async () => {
      expect(
        await rejection({
          ...validSpec,
          environments: ['production', 'evil.example/x?'],
          environmentOverrides: { 'x@evil.example#': { config: {} } },
        }),
      ).toBe(
        `Invalid HealthCheck 'payments-api', 2 problems:
- spec.environments[1]: "evil.example/x?" is not an environment name: "." is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case
- spec.environmentOverrides["x@evil.example#"]: "x@evil.example#" is not an environment name: "@" is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case`,
      );
    });
  });

  it('reports every problem at once, not only the first', async () => {
    const { target, ...withoutTarget } = validSpec;
    const message = await rejection({
      ...withoutTarget,
      type: 'ftp',
      interval: '1s',
      timeout: 'soon',
      colour: 'red',
      conditions: ['[STATUS] ==', '[STATUS] == 200'],
    });
    expect(message?.split('\n')).toEqual([
      `Invalid HealthCheck 'payments-api', 6 problems:`,
      `- spec.target: is required: what to probe, such as https://{{ system.name }}.example.com/health`,
      `- spec.colour: unknown field; the fields here are type, target, config, environmentOverrides, interval, timeout, conditions, thresholds, systems, components, environments, paused, owner, period, schedule, timezone, grace`,
      `- spec.timeout: "soon" is not a duration: expected a number at position 0, found "s" (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)`,
      `- spec.type: unknown probe type "ftp"; the known types are dns, http, tcp, tls`,
      `- spec.interval: 1s is below the minimum interval of 5s`,
      `- spec.conditions[0]: "[STATUS] ==", at position 11: nothing to compare after ==`,
    ]);
  });

  it('accepts any non-empty type when it is not told the known types', async () => {
    const open = new HealthCheckEntityProcessor();
    expect(
      await rejection({ ...validSpec, type: 'grpc' }, open),
    ).toBeUndefined();
  });

  it('knows the types that modules add by name when the config lists them, and judges nothing of their config', async () => {
    const withModules = new HealthCheckEntityProcessor({
      probeTypes: catalogProbeTypes(
        new ConfigReader({
          healthcheck: { catalog: { moduleProbeTypes: ['smtp'] } },
        }),
      ),
    });
    expect(
      await rejection(
        { ...validSpec, type: 'smtp', config: { anything: true } },
        withModules,
      ),
    ).toBeUndefined();
    expect(await rejection({ ...validSpec, type: 'smtp' })).toContain(
      'unknown probe type "smtp"',
    );
  });

  it('asks for the known types on every entity, so types added later count', async () => {
    const types = ['http'];
    const late = new HealthCheckEntityProcessor({
      probeTypes: {
        get: type => (types.includes(type) ? { type } : undefined),
        list: () => types,
      },
    });
    expect(await rejection({ ...validSpec, type: 'grpc' }, late)).toContain(
      'unknown probe type "grpc"',
    );
    types.push('grpc');
    expect(
      await rejection({ ...validSpec, type: 'grpc' }, late),
    ).toBeUndefined();
  });

  it('relates the check to every component it targets: it dependsOn them, they are a dependencyOf it', async () => {
    const emitted: CatalogProcessorResult[] = [];
    await processor.postProcessEntity(
      healthCheck({
        ...validSpec,
        components: ['payments-service', 'component:shop/Checkout-Service'],
      }),
      location,
      result => emitted.push(result),
    );
    const relations = emitted.flatMap(r =>
      r.type === 'relation' &&
      ['dependsOn', 'dependencyOf'].includes(r.relation.type)
        ? [
            `${r.relation.source.kind}:${r.relation.source.namespace}/${r.relation.source.name} ${r.relation.type} ${r.relation.target.kind}:${r.relation.target.namespace}/${r.relation.target.name}`,
          ]
        : [],
    );
    expect(relations).toEqual([
      'HealthCheck:default/payments-api dependsOn Component:default/payments-service',
      'Component:default/payments-service dependencyOf HealthCheck:default/payments-api',
      'HealthCheck:default/payments-api dependsOn component:shop/Checkout-Service',
      'component:shop/Checkout-Service dependencyOf HealthCheck:default/payments-api',
    ]);
  });

  it('accepts components as short names or full refs', async () => {
    expect(
      await rejection({
        ...validSpec,
        components: ['payments-service', 'component:shop/checkout-service'],
      }),
    ).toBeUndefined();
  });

  it('relates the check to its owner and to every system it monitors', async () => {
    const emitted: CatalogProcessorResult[] = [];
    await processor.postProcessEntity(
      healthCheck(validSpec),
      location,
      result => emitted.push(result),
    );
    const relations = emitted.map(r =>
      r.type === 'relation'
        ? `${r.relation.source.kind}:${r.relation.source.name} ${r.relation.type} ${r.relation.target.kind}:${r.relation.target.name}`
        : r.type,
    );
    expect(relations).toEqual([
      'HealthCheck:payments-api ownedBy Group:payments-team',
      'Group:payments-team ownerOf HealthCheck:payments-api',
      'HealthCheck:payments-api monitors system:payments',
      'system:payments monitoredBy HealthCheck:payments-api',
      'HealthCheck:payments-api monitors System:checkout',
      'System:checkout monitoredBy HealthCheck:payments-api',
    ]);
  });
});

describe('HealthCheckEntityProcessor and heartbeat checks', () => {
  const heartbeatEntity = (spec: object) => ({
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name: 'nightly-export' },
    spec: { type: 'heartbeat', grace: '30m', systems: ['shop'], ...spec },
  });

  it('accepts a heartbeat check on a schedule in a time zone', async () => {
    await expect(
      new HealthCheckEntityProcessor().validateEntityKind(
        heartbeatEntity({ schedule: '0 3 * * *', timezone: 'Europe/Paris' }),
      ),
    ).resolves.toBe(true);
  });

  it('refuses a schedule the cron parser cannot read, saying where', async () => {
    await expect(
      new HealthCheckEntityProcessor().validateEntityKind(
        heartbeatEntity({ schedule: '61 3 * * *' }),
      ),
    ).rejects.toThrow(
      /^Invalid HealthCheck 'nightly-export': spec\.schedule: "61 3 \* \* \*" is not a cron expression/,
    );
  });
});
