import {
  AuditorServiceCreateEventOptions,
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import {
  actionsRegistryServiceFactory,
  actionsServiceFactory,
} from '@backstage/backend-defaults/alpha';
import { mockCredentials, TestDatabases } from '@backstage/backend-test-utils';
import mcpActionsPlugin from '@backstage/plugin-mcp-actions-backend';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import type { PermissionPolicy } from '@backstage/plugin-permission-node';
import type { JsonObject } from '@backstage/types';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  PortalBackend,
  startPortalBackend,
} from '../__testUtils__/startPortalBackend';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';

// A whole portal per database, and probes that must run before the tests.
jest.setTimeout(180_000);

/*
 * An agent's view of Vigil: a portal with the MCP actions backend, and an
 * MCP client (the official SDK) speaking to it over Streamable HTTP as a
 * signed-in user. Payments' check fails, ledger's passes. Alice is in the
 * platform team, who may run checks; bob may only read.
 */
const alice = 'user:default/alice';
const bob = 'user:default/bob';
const memberships = { [alice]: ['group:default/platform-team'] };

const policy: PermissionPolicy = {
  async handle(req, user) {
    if (req.permission.name !== 'healthcheck.check.run') {
      return { result: AuthorizeResult.ALLOW };
    }
    const claims = user?.info.ownershipEntityRefs ?? [];
    return claims.includes('group:default/platform-team')
      ? { result: AuthorizeResult.ALLOW }
      : { result: AuthorizeResult.DENY };
  },
};

const VIGIL_TOOLS = [
  'healthcheck.get-check-history',
  'healthcheck.get-system-health',
  'healthcheck.list-unhealthy-systems',
  'healthcheck.run-check-now',
];
const PAYMENTS_CHECK = 'healthcheck:default/payments-http';
const PAYMENTS_SLICE = encodeSliceId({
  checkId: PAYMENTS_CHECK,
  systemRef: 'system:default/payments',
  environment: 'production',
});

function catalogOf(base: string) {
  const system = (name: string) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      annotations: { 'vigil.dev/environments': 'production' },
    },
    spec: { owner: 'group:default/platform-team' },
  });
  const check = (name: string, ofSystem: string) => ({
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name },
    spec: {
      type: 'http',
      target: `${base}/${name}`,
      interval: '2s',
      conditions: ['[STATUS] == 200'],
      thresholds: { failure: 1, success: 1 },
      owner: 'platform-team',
      systems: [ofSystem],
    },
  });
  return [
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Group',
      metadata: { name: 'platform-team' },
      spec: { type: 'team', children: [] },
    },
    system('payments'),
    system('ledger'),
    check('payments-http', 'payments'),
    check('ledger-http', 'ledger'),
  ]
    .map(entity => stringify(entity))
    .join('---\n');
}

interface AuditRecord {
  pluginId: string;
  eventId: string;
  meta?: JsonObject;
  outcome?: 'success' | 'fail';
  error?: string;
}

/** Every audit event of the portal, as its plugins record them. */
function recordingAuditor(events: AuditRecord[]) {
  return createServiceFactory({
    service: coreServices.auditor,
    deps: { plugin: coreServices.pluginMetadata },
    factory: ({ plugin }) => ({
      async createEvent(options: AuditorServiceCreateEventOptions) {
        const event: AuditRecord = {
          pluginId: plugin.getId(),
          eventId: options.eventId,
          meta: options.meta,
        };
        events.push(event);
        return {
          async success() {
            event.outcome = 'success';
          },
          async fail({ error }: { error: Error }) {
            event.outcome = 'fail';
            event.error = `${error.name}: ${error.message}`;
          },
        };
      },
    }),
  });
}

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  "Vigil's actions through the MCP actions backend, on %p",
  databaseId => {
    let target: Server;
    let portal: PortalBackend;
    let catalogDir: string;
    const audit: AuditRecord[] = [];
    const clients: Client[] = [];

    /** An MCP client connected as the user, as an agent configured with their token. */
    async function connectAs(user: string): Promise<Client> {
      const { port } = portal.server.address() as AddressInfo;
      const client = new Client({ name: 'vigil-test-agent', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(`http://127.0.0.1:${port}/api/mcp-actions/v1`),
          {
            requestInit: {
              headers: { Authorization: mockCredentials.user.header(user) },
            },
          },
        ),
      );
      clients.push(client);
      return client;
    }

    /** A tool's answer: what it returned, or the error it reported. */
    async function call(
      client: Client,
      name: string,
      args: Record<string, unknown>,
    ) {
      const result = await client.callTool({ name, arguments: args });
      const [content] = result.content as Array<{ text: string }>;
      return {
        isError: Boolean(result.isError),
        text: content.text,
        output: result.structuredContent as any,
      };
    }

    beforeAll(async () => {
      target = createServer((req, res) => {
        res.statusCode = req.url === '/payments-http' ? 500 : 200;
        res.end(res.statusCode === 200 ? 'UP' : 'DOWN');
      });
      await new Promise<void>(resolve =>
        target.listen(0, '127.0.0.1', resolve),
      );
      const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
      catalogDir = mkdtempSync(join(tmpdir(), 'vigil-mcp-'));
      const catalogFile = join(catalogDir, 'catalog.yaml');
      writeFileSync(catalogFile, catalogOf(base));

      portal = await startPortalBackend({
        catalogFile,
        databases,
        databaseId,
        policy,
        memberships,
        config: {
          // As the demo's app-config.yaml: the MCP server offers Vigil's actions.
          backend: { actions: { pluginSources: ['healthcheck'] } },
          healthcheck: {
            network: { allowLoopback: true },
            minimumInterval: '1s',
            reconcile: { catalogPollInterval: '1s', catalogPollBudget: 1 },
            rollup: { window: '200ms' },
            scheduler: { refreshInterval: '500ms' },
          },
        },
        features: [
          mcpActionsPlugin,
          // The real registry and actions service, not the test mocks: the
          // MCP backend reaches Vigil's actions over HTTP, on behalf of the
          // caller, as in a portal.
          actionsRegistryServiceFactory,
          actionsServiceFactory,
          recordingAuditor(audit),
        ],
      });

      const agent = await connectAs(bob);
      await waitFor(
        'payments to be unhealthy and ledger healthy',
        async () =>
          Promise.all(
            ['payments', 'ledger'].map(async system => {
              const { output, text } = await call(
                agent,
                'healthcheck.get-system-health',
                { system },
              );
              return output?.status ?? text;
            }),
          ),
        ([payments, ledger]) =>
          payments === 'unhealthy' && ledger === 'healthy',
      );
    });

    afterAll(async () => {
      await Promise.all(clients.map(client => client.close()));
      await portal?.stop();
      await new Promise(resolve => target?.close(resolve));
      rmSync(catalogDir, { recursive: true, force: true });
    });

    it("lists Vigil's four tools, the reads marked read-only", async () => {
      const { tools } = await (await connectAs(bob)).listTools();
      const vigil = tools.filter(tool => tool.name.startsWith('healthcheck.'));
      expect(vigil.map(tool => tool.name).sort()).toEqual(VIGIL_TOOLS);
      const readOnly = Object.fromEntries(
        vigil.map(tool => [tool.name, tool.annotations?.readOnlyHint]),
      );
      expect(readOnly).toEqual({
        'healthcheck.get-check-history': true,
        'healthcheck.get-system-health': true,
        'healthcheck.list-unhealthy-systems': true,
        'healthcheck.run-check-now': false,
      });
      const health = vigil.find(
        tool => tool.name === 'healthcheck.get-system-health',
      );
      expect(health?.inputSchema).toMatchObject({
        type: 'object',
        properties: { system: { type: 'string' } },
        required: ['system'],
      });
    });

    it("answers a system's health: rollup, environments, reasons and checks", async () => {
      const { isError, output } = await call(
        await connectAs(bob),
        'healthcheck.get-system-health',
        { system: 'system:default/payments' },
      );
      expect(isError).toBe(false);
      expect(output).toMatchObject({
        systemRef: 'system:default/payments',
        name: 'payments',
        owner: 'group:default/platform-team',
        status: 'unhealthy',
        healthy: 0,
        total: 1,
        environments: [
          { name: 'production', status: 'unhealthy', healthy: 0, total: 1 },
        ],
        reasons: [
          {
            checkId: PAYMENTS_CHECK,
            environment: 'production',
            status: 'unhealthy',
          },
        ],
        upstream: [],
        environmentNames: ['production'],
        checks: [
          {
            checkId: PAYMENTS_CHECK,
            cells: { production: { status: 'unhealthy', paused: false } },
          },
        ],
      });
      expect(output.reasons[0].display).toContain('500');
      // What only the browser needs stays out of an agent's answer.
      expect(output).not.toHaveProperty('liveKey');
    });

    it('names what is wrong with a system ref, and a missing system as missing', async () => {
      const agent = await connectAs(bob);
      expect(
        await call(agent, 'healthcheck.get-system-health', {
          system: 'component:default/payments',
        }),
      ).toMatchObject({
        isError: true,
        text: "InputError: system: 'component:default/payments' is a component, not a System; give a System's name or ref",
      });
      expect(
        await call(agent, 'healthcheck.get-system-health', {
          system: 'nowhere',
        }),
      ).toMatchObject({
        isError: true,
        text: 'NotFoundError: No system system:default/nowhere',
      });
    });

    it('lists the unhealthy systems, and others by status, with the counts', async () => {
      const agent = await connectAs(bob);
      const unhealthy = await call(
        agent,
        'healthcheck.list-unhealthy-systems',
        {},
      );
      expect(unhealthy.isError).toBe(false);
      expect(unhealthy.output).toMatchObject({
        totalCount: 1,
        counts: { healthy: 1, unhealthy: 1 },
        items: [{ systemRef: 'system:default/payments', status: 'unhealthy' }],
      });
      const healthy = await call(agent, 'healthcheck.list-unhealthy-systems', {
        statuses: ['healthy'],
        owner: 'platform-team',
        environment: 'production',
      });
      expect(healthy.output.items.map((s: any) => s.systemRef)).toEqual([
        'system:default/ledger',
      ]);
      const searched = await call(agent, 'healthcheck.list-unhealthy-systems', {
        search: 'ledg',
      });
      expect(searched.output.items).toEqual([]);
    });

    it("answers a check's runs and up-time per environment", async () => {
      const { isError, output } = await call(
        await connectAs(bob),
        'healthcheck.get-check-history',
        { system: 'payments', check: PAYMENTS_CHECK, limit: 2 },
      );
      expect(isError).toBe(false);
      expect(output).toMatchObject({
        systemRef: 'system:default/payments',
        checkId: PAYMENTS_CHECK,
        environments: [
          {
            environment: 'production',
            status: 'unhealthy',
            uptime: { '24h': 0 },
          },
        ],
      });
      const [production] = output.environments;
      expect(production.runs.length).toBeGreaterThanOrEqual(1);
      expect(production.runs.length).toBeLessThanOrEqual(2);
      expect(production.runs[0]).toMatchObject({
        outcome: 'fail',
        status: 'unhealthy',
        conditions: [{ condition: '[STATUS] == 200', success: false }],
      });
      expect(Date.parse(production.runs[0].startedAt)).toBeGreaterThan(
        Date.parse(output.from),
      );
    });

    it("names a system's checks when asked for one it does not have", async () => {
      expect(
        await call(await connectAs(bob), 'healthcheck.get-check-history', {
          system: 'payments',
          check: 'ledger-http',
        }),
      ).toEqual({
        isError: true,
        text: `NotFoundError: system:default/payments has no check 'ledger-http'; its checks: ${PAYMENTS_CHECK}`,
        output: undefined,
      });
    });

    it('runs a check now for a user allowed to, and audits it as theirs', async () => {
      const { isError, output } = await call(
        await connectAs(alice),
        'healthcheck.run-check-now',
        { check: PAYMENTS_CHECK },
      );
      expect(isError).toBe(false);
      expect(output.runs).toEqual([
        {
          runId: expect.stringMatching(new RegExp(`^${PAYMENTS_SLICE}@\\d+$`)),
          sliceId: PAYMENTS_SLICE,
          systemRef: 'system:default/payments',
          environment: 'production',
        },
      ]);
      expect(
        audit.filter(
          e => e.pluginId === 'healthcheck' && e.eventId === 'check-run',
        ),
      ).toContainEqual({
        pluginId: 'healthcheck',
        eventId: 'check-run',
        meta: {
          checkId: PAYMENTS_CHECK,
          action: 'run-check-now',
          actor: alice,
        },
        outcome: 'success',
      });
    });

    it('refuses to run a check for a user without the permission, and audits the refusal', async () => {
      const before = audit.length;
      const { isError, text } = await call(
        await connectAs(bob),
        'healthcheck.run-check-now',
        { check: PAYMENTS_CHECK },
      );
      expect({ isError, text }).toEqual({
        isError: true,
        text: `NotAllowedError: You may not do this: it needs the permission healthcheck.check.run on check '${PAYMENTS_CHECK}'`,
      });
      expect(audit.slice(before)).toContainEqual({
        pluginId: 'healthcheck',
        eventId: 'check-run',
        meta: {
          checkId: PAYMENTS_CHECK,
          action: 'run-check-now',
          actor: bob,
        },
        outcome: 'fail',
        error: `NotAllowedError: You may not do this: it needs the permission healthcheck.check.run on check '${PAYMENTS_CHECK}'`,
      });
    });
  },
);
