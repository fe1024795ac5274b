/**
 * One Gatus endpoint as the parts of a HealthCheck spec: which probe, what
 * target, which config, timing, conditions and thresholds. What cannot be
 * carried over makes the endpoint `reported`, with the reasons; what is
 * left behind without changing what is probed is a note.
 */
import { JsonObject } from '@backstage/types';
import {
  formatDuration,
  parseDuration,
} from '@vigil/plugin-healthcheck-common';
import { DNS_RECORD_TYPES } from '@vigil/plugin-healthcheck-node';
import { isIP } from 'node:net';
import { envToSecretReferences, findEnvReferences } from './envReferences';

/** A Gatus value of unknown shape, as YAML gave it. */
export type GatusRecord = Record<string, unknown>;

/** The longest timeout Vigil allows (HEALTHCHECK_SPEC_LIMITS.maxTimeoutMs). */
const MAX_TIMEOUT = '60s';
const MAX_TIMEOUT_MS = 60_000;
/** Gatus's interval when an endpoint names none. */
const GATUS_DEFAULT_INTERVAL = '60s';
/** Gatus's alert thresholds when an alert names none. */
const GATUS_DEFAULT_ALERT_THRESHOLDS = { failure: 3, success: 2 };

/** Endpoint fields the translation reads; any other is noted as ignored. */
const KNOWN_FIELDS = new Set([
  'name',
  'group',
  'url',
  'method',
  'body',
  'graphql',
  'headers',
  'interval',
  'conditions',
  'alerts',
  'client',
  'dns',
  'ssh',
  'ui',
  'enabled',
  'extra-labels',
  'maintenance-windows',
]);

/** Client settings that change what is probed and that Vigil has no way to honour. */
const UNSUPPORTED_CLIENT_SETTINGS: Record<string, string> = {
  'dns-resolver':
    "client.dns-resolver: Vigil resolves names with the backend host's resolver",
  'proxy-url': 'client.proxy-url: Vigil probes do not go through a proxy',
  oauth2:
    'client.oauth2: Vigil does not fetch OAuth2 tokens; send a token header from a secret instead',
  'identity-aware-proxy':
    'client.identity-aware-proxy: Vigil does not fetch Google IAP tokens',
  tls: 'client.tls: Vigil probes present no client certificate (mTLS)',
};

/** URL schemes with no Vigil probe type, and why. */
const UNSUPPORTED_SCHEMES: Record<string, string> = {
  icmp: 'ICMP (ping) endpoints: Vigil has no ICMP probe type',
  udp: 'UDP endpoints: Vigil has no UDP probe type',
  sctp: 'SCTP endpoints: Vigil has no SCTP probe type',
  ssh: 'SSH endpoints: Vigil has no SSH probe type',
  grpc: 'gRPC endpoints: Vigil has no gRPC health probe type',
  grpcs: 'gRPC endpoints: Vigil has no gRPC health probe type',
  starttls:
    "STARTTLS endpoints: Vigil's tls probe opens TLS directly and cannot upgrade a plain connection",
  ws: 'WebSocket endpoints: Vigil has no WebSocket probe type',
  wss: 'WebSocket endpoints: Vigil has no WebSocket probe type',
};

/** What the translation of one endpoint needs from the rest of the config. */
export interface EndpointContext {
  /** Threshold defaults per alert provider (`alerting.<type>.default-alert`). */
  defaultAlerts: ReadonlyMap<string, GatusRecord>;
}

/** The spec fields an endpoint translates into (systems and owner come later). */
export type TranslatedSpec = {
  type: string;
  target?: string;
  /** A heartbeat check's (from an external endpoint's heartbeat.interval). */
  period?: string;
  grace?: string;
  config?: JsonObject;
  interval?: string;
  timeout?: string;
  conditions?: string[];
  thresholds?: { failure: number; success: number };
  paused?: boolean;
};

/** The outcome of translating one endpoint. */
export type EndpointTranslation =
  | {
      kind: 'converted';
      spec: TranslatedSpec;
      /** What was left behind or changed, for the operator. */
      notes: string[];
      /** Environment variables now referenced as secrets. */
      secrets: string[];
      /** `extra-labels` that are valid entity labels. */
      labels: Record<string, string>;
    }
  | { kind: 'reported'; reasons: string[] };

/**
 * Translates one Gatus endpoint. Its conditions are copied as written (the
 * condition language is Gatus's); whether they and the rest are valid for
 * Vigil is the validator's to say, after.
 */
export function translateEndpoint(
  endpoint: GatusRecord,
  context: EndpointContext,
): EndpointTranslation {
  const reasons: string[] = [];
  const notes: string[] = [];
  const url = typeof endpoint.url === 'string' ? endpoint.url.trim() : '';
  if (!url) {
    return { kind: 'reported', reasons: ['has no url'] };
  }
  const conditions = endpoint.conditions;
  if (!Array.isArray(conditions) || conditions.length === 0) {
    reasons.push('has no conditions (Gatus requires at least one)');
  } else if (conditions.some(c => typeof c !== 'string')) {
    reasons.push('conditions: every condition must be text');
  }
  const envInUrl = findEnvReferences(url);
  if (envInUrl.length > 0) {
    reasons.push(
      `url reads environment variables (${envInUrl.join(
        ', ',
      )}): a Vigil target is written out in the entity and cannot hold a secret`,
    );
  }
  if (Array.isArray(conditions)) {
    const envInConditions = conditions.flatMap(c =>
      typeof c === 'string' ? findEnvReferences(c) : [],
    );
    if (envInConditions.length > 0) {
      reasons.push(
        `conditions read environment variables (${[
          ...new Set(envInConditions),
        ].join(', ')}): write their values into the conditions`,
      );
    }
  }

  const client = asRecord(endpoint.client);
  for (const [setting, reason] of Object.entries(UNSUPPORTED_CLIENT_SETTINGS)) {
    if (client[setting] !== undefined && client[setting] !== null) {
      reasons.push(reason);
    }
  }

  const probe = probeOf(endpoint, url, client);
  if (probe.kind === 'reported') {
    reasons.push(...probe.reasons);
  }
  if (reasons.length > 0 || probe.kind === 'reported') {
    return { kind: 'reported', reasons };
  }

  notes.push(...probe.notes);
  for (const field of Object.keys(endpoint)) {
    if (!KNOWN_FIELDS.has(field)) {
      notes.push(`${field}: not a field this importer knows; ignored`);
    }
  }
  if (client.network !== undefined) {
    notes.push(
      'client.network: Vigil connects over IPv4 or IPv6 as the name resolves; ignored',
    );
  }
  if (endpoint.ui !== undefined) {
    notes.push('ui: Gatus dashboard settings; ignored');
  }

  const interval = durationText(endpoint.interval) ?? GATUS_DEFAULT_INTERVAL;
  const timeout = timeoutOf(client.timeout, interval, notes);
  const spec: TranslatedSpec = {
    type: probe.type,
    target: probe.target,
    interval,
    ...(timeout ? { timeout } : {}),
    ...(Object.keys(probe.config).length > 0 ? { config: probe.config } : {}),
    conditions: conditions as string[],
  };
  applyAlertsAndEnabled(spec, endpoint, context, notes);
  return {
    kind: 'converted',
    spec,
    notes,
    secrets: probe.secrets,
    labels: asStringRecord(endpoint['extra-labels']),
  };
}

type ProbeTranslation =
  | {
      kind: 'converted';
      type: string;
      target: string;
      config: JsonObject;
      secrets: string[];
      notes: string[];
    }
  | { kind: 'reported'; reasons: string[] };

function probeOf(
  endpoint: GatusRecord,
  url: string,
  client: GatusRecord,
): ProbeTranslation {
  const dns = asRecord(endpoint.dns);
  if (endpoint.dns !== undefined) {
    return dnsProbe(url, dns);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme && UNSUPPORTED_SCHEMES[scheme]) {
    return { kind: 'reported', reasons: [UNSUPPORTED_SCHEMES[scheme]] };
  }
  if (scheme === 'http' || scheme === 'https') {
    return httpProbe(endpoint, url, client);
  }
  if (scheme === 'tcp' || scheme === 'tls') {
    return socketProbe(scheme, endpoint, url, client);
  }
  return {
    kind: 'reported',
    reasons: [
      scheme
        ? `${scheme}:// endpoints: no Vigil probe type reads this scheme`
        : `url ${JSON.stringify(url)} has no scheme, and no dns block`,
    ],
  };
}

function httpProbe(
  endpoint: GatusRecord,
  url: string,
  client: GatusRecord,
): ProbeTranslation {
  const config: JsonObject = {};
  const secrets = new Set<string>();
  const notes: string[] = [];
  const withSecrets = (text: string) => {
    const translated = envToSecretReferences(text);
    translated.secrets.forEach(name => secrets.add(name));
    return translated.text;
  };
  if (typeof endpoint.method === 'string' && endpoint.method !== '') {
    const method = endpoint.method.toUpperCase();
    if (method !== 'GET') {
      config.method = method;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(
    asStringRecord(endpoint.headers),
  )) {
    headers[name] = withSecrets(value);
  }
  if (endpoint.body !== undefined && endpoint.body !== null) {
    let body = String(endpoint.body);
    if (endpoint.graphql === true) {
      // Gatus sends a GraphQL body as the query of a JSON request.
      body = JSON.stringify({ query: body });
      if (!Object.keys(headers).some(h => h.toLowerCase() === 'content-type')) {
        headers['Content-Type'] = 'application/json';
      }
      notes.push('graphql: the body is sent as {"query": ...} JSON');
    }
    config.body = withSecrets(body);
  }
  if (Object.keys(headers).length > 0) {
    config.headers = headers;
  }
  if (client['ignore-redirect'] === true) {
    config.followRedirects = false;
  }
  if (client.insecure === true) {
    config.tls = { insecureSkipVerify: true };
  }
  return {
    kind: 'converted',
    type: 'http',
    target: url,
    config,
    secrets: [...secrets],
    notes,
  };
}

function socketProbe(
  scheme: 'tcp' | 'tls',
  endpoint: GatusRecord,
  url: string,
  client: GatusRecord,
): ProbeTranslation {
  const config: JsonObject = {};
  const secrets: string[] = [];
  const notes: string[] = [];
  if (
    scheme === 'tcp' &&
    endpoint.body !== undefined &&
    endpoint.body !== null
  ) {
    const translated = envToSecretReferences(String(endpoint.body));
    config.send = translated.text;
    secrets.push(...translated.secrets);
  }
  if (scheme === 'tls' && endpoint.body !== undefined) {
    return {
      kind: 'reported',
      reasons: ["body: Vigil's tls probe sends nothing after the handshake"],
    };
  }
  if (scheme === 'tls' && client.insecure === true) {
    config.insecureSkipVerify = true;
  }
  if (endpoint.headers !== undefined) {
    notes.push(`headers: a ${scheme} probe sends none; ignored`);
  }
  return {
    kind: 'converted',
    type: scheme,
    target: url,
    config,
    secrets,
    notes,
  };
}

function dnsProbe(url: string, dns: GatusRecord): ProbeTranslation {
  const reasons: string[] = [];
  const queryName =
    typeof dns['query-name'] === 'string' ? dns['query-name'].trim() : '';
  const queryType =
    typeof dns['query-type'] === 'string'
      ? dns['query-type'].toUpperCase()
      : '';
  if (!queryName) {
    reasons.push('dns.query-name is missing');
  }
  if (!(DNS_RECORD_TYPES as readonly string[]).includes(queryType)) {
    reasons.push(
      `dns.query-type ${JSON.stringify(
        dns['query-type'] ?? null,
      )}: Vigil's dns probe asks for ${DNS_RECORD_TYPES.join(', ')}`,
    );
  }
  const server = url.replace(/^(udp|tcp|dns):\/\//i, '');
  const host = /^\[(.*)\](?::\d+)?$/.exec(server)?.[1] ?? server.split(':')[0];
  const hostIsIp = isIP(host) !== 0 || isIP(server) !== 0;
  if (!hostIsIp) {
    reasons.push(
      `url ${JSON.stringify(
        url,
      )}: Vigil's dns probe asks a server given by IP address`,
    );
  }
  if (reasons.length > 0) {
    return { kind: 'reported', reasons };
  }
  const config: JsonObject = { server };
  if (queryType !== 'A') {
    config.recordType = queryType;
  }
  return {
    kind: 'converted',
    type: 'dns',
    target: queryName.replace(/\.$/, ''),
    config,
    secrets: [],
    notes: [
      'dns: [BODY] holds every answer, one per line, where Gatus keeps one',
    ],
  };
}

/** Gatus's `client.timeout` within what Vigil allows: at most 60s and the interval. */
function timeoutOf(
  value: unknown,
  interval: string,
  notes: string[],
): string | undefined {
  const timeout = durationText(value);
  if (!timeout) {
    return undefined;
  }
  const timeoutMs = durationMs(timeout);
  const intervalMs = durationMs(interval);
  if (timeoutMs === undefined || intervalMs === undefined) {
    return timeout; // The validator names what is wrong with it.
  }
  if (timeoutMs > MAX_TIMEOUT_MS && intervalMs >= MAX_TIMEOUT_MS) {
    notes.push(
      `client.timeout ${timeout} is above Vigil's longest, ${MAX_TIMEOUT}; imported as ${MAX_TIMEOUT}`,
    );
    return MAX_TIMEOUT;
  }
  if (timeoutMs > intervalMs) {
    notes.push(
      `client.timeout ${timeout} is longer than the interval; imported as ${interval}, as a run must end before the next`,
    );
    return interval;
  }
  return timeout;
}

/** The alerts' thresholds, and `enabled: false` as paused, onto a spec. */
function applyAlertsAndEnabled(
  spec: TranslatedSpec,
  endpoint: GatusRecord,
  context: EndpointContext,
  notes: string[],
) {
  const thresholds = alertThresholds(endpoint.alerts, context, notes);
  if (thresholds) {
    spec.thresholds = thresholds;
  }
  if (endpoint.enabled === false) {
    spec.paused = true;
    notes.push('enabled: false: the check is imported paused');
  }
}

/**
 * The alerts' thresholds as the check's: Vigil notifies from status
 * changes, so the consecutive failures an alert waited for become the
 * failures that turn the check unhealthy. The most eager alert wins.
 */
function alertThresholds(
  alerts: unknown,
  context: EndpointContext,
  notes: string[],
): TranslatedSpec['thresholds'] {
  if (!Array.isArray(alerts) || alerts.length === 0) {
    return undefined;
  }
  const enabled = alerts.map(asRecord).filter(alert => alert.enabled !== false);
  const types = [...new Set(alerts.map(a => String(asRecord(a).type)))];
  notes.push(
    `alerts (${types.join(
      ', ',
    )}): alert providers are not imported; Vigil notifies the system's owner through Backstage notifications${
      enabled.length > 0 ? ", with the alerts' thresholds as the check's" : ''
    }`,
  );
  if (enabled.length === 0) {
    return undefined;
  }
  const threshold = (alert: GatusRecord, key: 'failure' | 'success') => {
    const fallback = asRecord(context.defaultAlerts.get(String(alert.type)));
    const value = alert[`${key}-threshold`] ?? fallback[`${key}-threshold`];
    return typeof value === 'number' && Number.isInteger(value) && value >= 1
      ? Math.min(value, 100)
      : GATUS_DEFAULT_ALERT_THRESHOLDS[key];
  };
  return {
    failure: Math.min(...enabled.map(alert => threshold(alert, 'failure'))),
    success: Math.min(...enabled.map(alert => threshold(alert, 'success'))),
  };
}

/** The shortest and longest grace given to an imported heartbeat. */
const MIN_HEARTBEAT_GRACE_MS = 1_000;
const MAX_HEARTBEAT_GRACE_MS = 3_600_000;

/**
 * The grace of a heartbeat imported from Gatus, whose external endpoint
 * fails the moment `heartbeat.interval` passes without a push: a tenth of
 * the interval in whole seconds, within [1s, 1h], so a push that is a
 * little late (a slow job, a clock apart) does not page anyone.
 */
export function importedHeartbeatGraceMs(intervalMs: number): number {
  return Math.min(
    MAX_HEARTBEAT_GRACE_MS,
    Math.max(MIN_HEARTBEAT_GRACE_MS, Math.round(intervalMs / 10_000) * 1_000),
  );
}

/**
 * Translates one Gatus external endpoint, whose results a client pushes: one
 * with `heartbeat.interval` becomes a heartbeat check (period the interval,
 * grace {@link importedHeartbeatGraceMs}); one without expects nothing by any
 * time, which a heartbeat check cannot say, and is reported.
 */
export function translateExternalEndpoint(
  endpoint: GatusRecord,
  context: EndpointContext,
): EndpointTranslation {
  const interval = durationText(asRecord(endpoint.heartbeat).interval);
  if (interval === undefined) {
    return {
      kind: 'reported',
      reasons: [
        'an external endpoint without heartbeat.interval expects no push by any time; a Vigil heartbeat check needs a period (give the endpoint heartbeat.interval to import it)',
      ],
    };
  }
  const intervalMs = durationMs(interval);
  if (intervalMs === undefined) {
    return {
      kind: 'reported',
      reasons: [
        `heartbeat.interval: ${JSON.stringify(interval)} is not a duration`,
      ],
    };
  }
  const graceMs = importedHeartbeatGraceMs(intervalMs);
  const notes = [
    `heartbeat: a heartbeat check, pinged at its Vigil ping URL instead of Gatus's /api/v1/endpoints/{key}/external; it fails ${formatDuration(
      graceMs,
    )} (its grace) after Gatus would`,
  ];
  if (endpoint.token !== undefined) {
    notes.push(
      'token: not imported; Vigil makes a ping token per slice (POST /v1/checks/{id}/heartbeat/tokens)',
    );
  }
  const spec: TranslatedSpec = {
    type: 'heartbeat',
    period: interval,
    grace: formatDuration(graceMs),
  };
  applyAlertsAndEnabled(spec, endpoint, context, notes);
  return { kind: 'converted', spec, notes, secrets: [], labels: {} };
}

/** A Gatus duration as text, for the validator to judge when it is not one. */
function durationText(value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  return String(value).trim();
}

/** Milliseconds of a duration, or undefined when it is none. */
function durationMs(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

export function asRecord(value: unknown): GatusRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as GatusRecord)
    : {};
}

function asStringRecord(value: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(asRecord(value))) {
    if (entry !== null && entry !== undefined) {
      result[key] = String(entry);
    }
  }
  return result;
}
