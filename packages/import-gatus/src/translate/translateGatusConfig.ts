/**
 * A Gatus configuration (as parsed YAML) as Vigil HealthCheck entities and
 * a report of everything that was not carried over. No I/O: reading files
 * and writing entities is the CLI's.
 */
import {
  HEALTHCHECK_API_VERSION,
  HEALTHCHECK_KIND,
  HealthCheckEntityV1alpha1,
  MaintenanceWindowEntityV1alpha1,
} from '@vigil/plugin-healthcheck-common';
import { KubernetesValidatorFunctions } from '@backstage/catalog-model';
import {
  asRecord,
  GatusRecord,
  translateEndpoint,
  TranslatedSpec,
  translateExternalEndpoint,
} from './endpointTranslation';
import { toEntityName, uniqueEntityNames } from './entityNames';
import { translateMaintenance } from './maintenanceTranslation';
import {
  findImportedEntityProblems,
  SecretToDeclare,
  secretsToDeclare,
} from './validateImportedEntity';

/** Where the imported checks go. */
export interface GatusImportOptions {
  /** Gatus group → system ref; a group not listed goes to the system of its own name. */
  systems?: Record<string, string>;
  /** The system of endpoints without a group. Default `ungrouped`. */
  defaultSystem?: string;
  /** The entities' namespace; the catalog's default when absent. */
  namespace?: string;
  /** `spec.owner` of every check: a group or user ref. */
  owner?: string;
}

/** The annotation that names the Gatus endpoint a check came from. */
export const GATUS_ENDPOINT_ANNOTATION = 'vigil.dev/gatus-endpoint';

/** An endpoint that became a valid HealthCheck. */
export interface ImportedCheck {
  /** The endpoint's Gatus group, if it has one. */
  group?: string;
  /** `group/name`, or `name` without a group. */
  endpoint: string;
  entity: HealthCheckEntityV1alpha1;
  /** What was left behind or adjusted on the way. */
  notes: string[];
}

/** A Gatus maintenance window that became a MaintenanceWindow. */
export interface ImportedMaintenanceWindow {
  /** The endpoint whose `maintenance-windows` it came from; none for the configuration's `maintenance`. */
  endpoint?: string;
  entity: MaintenanceWindowEntityV1alpha1;
  notes: string[];
}

/** An endpoint that was not imported, and why. */
export interface ReportedEndpoint {
  endpoint: string;
  section: 'endpoints' | 'external-endpoints' | 'suites';
  reasons: string[];
}

/** What an import makes of one Gatus configuration. */
export interface GatusImportResult {
  /** Every endpoint the configuration declares, of all sections. */
  endpointCount: number;
  checks: ImportedCheck[];
  /** Gatus maintenance, as windows over the imported checks. */
  maintenanceWindows: ImportedMaintenanceWindow[];
  reported: ReportedEndpoint[];
  /** Configuration-wide things not carried over (alerting, maintenance, storage, ...). */
  notes: string[];
  /** The secrets the checks reference, for `healthcheck.secrets`. */
  secrets: SecretToDeclare[];
  /** The system refs the checks are assigned to, each once. */
  systems: string[];
}

/** Top-level keys about Gatus's own operation, with nothing to import. */
const GATUS_OWN_SETTINGS = new Set([
  'storage',
  'metrics',
  'ui',
  'web',
  'security',
  'connectivity',
  'remote',
  'announcements',
  'skip-invalid-config-update',
  'disable-monitoring-lock',
  'concurrency',
  'tunneling',
]);
const TRANSLATED_SECTIONS = new Set([
  'endpoints',
  'external-endpoints',
  'suites',
  'alerting',
  'maintenance',
]);

interface Candidate {
  endpoint: string;
  section: 'endpoints' | 'external-endpoints';
  name: string;
  group?: string;
  spec: TranslatedSpec;
  notes: string[];
  secrets: string[];
  labels: Record<string, string>;
  /** The endpoint's `maintenance-windows`, as Gatus wrote them. */
  maintenance: unknown[];
}

/**
 * Translates a Gatus configuration. Every endpoint ends up either in
 * `checks`, as an entity that passes the same validation as the catalog's
 * (the built-in probe types, and the secrets as `secrets` declares them),
 * or in `reported`, with the reasons.
 */
export async function translateGatusConfig(
  config: unknown,
  options: GatusImportOptions = {},
): Promise<GatusImportResult> {
  const root = asRecord(config);
  const reported: ReportedEndpoint[] = [];
  const notes = configNotes(root);
  const defaultAlerts = new Map(
    Object.entries(asRecord(root.alerting)).map(([type, provider]) => [
      type,
      asRecord(asRecord(provider)['default-alert']),
    ]),
  );

  const endpoints = asList(root.endpoints);
  const candidates: Candidate[] = [];
  const seenKeys = new Set<string>();
  // Probed endpoints, and pushed ones; a key is taken once across both.
  const sections = [
    ['endpoints', endpoints, translateEndpoint],
    [
      'external-endpoints',
      asList(root['external-endpoints']),
      translateExternalEndpoint,
    ],
  ] as const;
  for (const [section, list, translate] of sections) {
    list.forEach((value, index) => {
      const endpoint = asRecord(value);
      const key = endpointKey(endpoint, `${section}[${index}]`);
      const report = (reasons: string[]) =>
        reported.push({ endpoint: key, section, reasons });
      if (typeof endpoint.name !== 'string' || endpoint.name.trim() === '') {
        report(['has no name']);
        return;
      }
      if (seenKeys.has(key)) {
        report([
          'another endpoint has the same group and name (Gatus refuses this too)',
        ]);
        return;
      }
      seenKeys.add(key);
      const translation = translate(endpoint, { defaultAlerts });
      if (translation.kind === 'reported') {
        report(translation.reasons);
        return;
      }
      candidates.push({
        endpoint: key,
        section,
        name: endpoint.name,
        group: groupOf(endpoint),
        ...translation,
        maintenance: asList(endpoint['maintenance-windows']),
      });
    });
  }
  asList(root.suites).forEach((value, suiteIndex) => {
    const suite = asRecord(value);
    const suiteName = String(suite.name ?? `suites[${suiteIndex}]`);
    asList(suite.endpoints).forEach((step, index) => {
      reported.push({
        endpoint: `${suiteName}: ${endpointKey(
          asRecord(step),
          `endpoints[${index}]`,
        )}`,
        section: 'suites',
        reasons: [
          `part of the suite ${JSON.stringify(
            suiteName,
          )}, whose steps share context; Vigil runs no multi-step suites`,
        ],
      });
    });
  });

  const names = uniqueEntityNames(candidates);
  const built = candidates.map((candidate, index) =>
    buildCheck(candidate, names[index], options),
  );
  // A heartbeat check sends nothing anywhere, so it uses no secrets.
  const secrets = secretsToDeclare(
    built.flatMap(({ check, secrets: used }) =>
      check.entity.spec.target === undefined
        ? []
        : [
            {
              entityName: check.entity.metadata.name,
              type: check.entity.spec.type,
              target: check.entity.spec.target,
              secrets: used,
            },
          ],
    ),
  );

  const checks: ImportedCheck[] = [];
  const maintenanceWindows: ImportedMaintenanceWindow[] = [];
  for (const [index, { check }] of built.entries()) {
    const problems = await findImportedEntityProblems(check.entity, secrets);
    if (problems.length > 0) {
      reported.push({
        endpoint: check.endpoint,
        section: candidates[index].section,
        reasons: problems.map(problem => `not valid in Vigil: ${problem}`),
      });
    } else {
      checks.push(check);
      maintenanceWindows.push(
        ...endpointMaintenance(check, candidates[index].maintenance, options),
      );
    }
  }
  maintenanceWindows.push(
    ...configMaintenance(root.maintenance, checks, notes, options),
  );
  if (checks.length > 0 && !options.owner) {
    notes.push(
      'no owner given (--owner): a HealthCheck entity monitors only systems its spec.owner owns, unless healthcheck.checks.fromCatalog is any',
    );
  }
  const importedNames = new Set(
    checks.map(check => check.entity.metadata.name),
  );
  return {
    endpointCount:
      endpoints.length +
      asList(root['external-endpoints']).length +
      asList(root.suites).reduce<number>(
        (sum, suite) => sum + asList(asRecord(suite).endpoints).length,
        0,
      ),
    checks,
    maintenanceWindows,
    reported,
    notes,
    secrets: secrets
      .map(secret => ({
        ...secret,
        usedBy: secret.usedBy.filter(name => importedNames.has(name)),
      }))
      .filter(secret => secret.usedBy.length > 0),
    systems: [
      ...new Set(checks.flatMap(check => check.entity.spec.systems)),
    ].sort(),
  };
}

function buildCheck(
  candidate: Candidate,
  name: string,
  options: GatusImportOptions,
): { check: ImportedCheck; secrets: string[] } {
  const { group } = candidate;
  const system =
    group === undefined
      ? options.defaultSystem ?? 'ungrouped'
      : options.systems?.[group] ?? toEntityName(group, 'ungrouped');
  const labels: Record<string, string> = {};
  const notes = [...candidate.notes];
  for (const [key, value] of Object.entries(candidate.labels)) {
    if (
      KubernetesValidatorFunctions.isValidLabelKey(key) &&
      KubernetesValidatorFunctions.isValidLabelValue(value)
    ) {
      labels[key] = value;
    } else {
      notes.push(
        `extra-labels.${key}: not a valid entity label; left out (${JSON.stringify(
          value,
        )})`,
      );
    }
  }
  const entity: HealthCheckEntityV1alpha1 = {
    apiVersion: HEALTHCHECK_API_VERSION,
    kind: HEALTHCHECK_KIND,
    metadata: {
      name,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      title: candidate.name,
      description: `Imported from the Gatus ${
        candidate.section === 'external-endpoints'
          ? 'external endpoint'
          : 'endpoint'
      } ${JSON.stringify(candidate.name)}${
        group === undefined ? '' : ` of group ${JSON.stringify(group)}`
      }`,
      annotations: { [GATUS_ENDPOINT_ANNOTATION]: candidate.endpoint },
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
    },
    spec: {
      ...candidate.spec,
      systems: [system],
      ...(options.owner ? { owner: options.owner } : {}),
    },
  };
  return {
    check: { group, endpoint: candidate.endpoint, entity, notes },
    secrets: candidate.secrets,
  };
}

/** What the configuration holds besides endpoints, and what became of it. */
function configNotes(root: GatusRecord): string[] {
  const notes: string[] = [];
  const providers = Object.keys(asRecord(root.alerting));
  if (providers.length > 0) {
    notes.push(
      `alerting (${providers.join(
        ', ',
      )}): alert providers are not imported; Vigil notifies each system's owner through Backstage notifications`,
    );
  }
  for (const key of Object.keys(root)) {
    if (GATUS_OWN_SETTINGS.has(key)) {
      notes.push(`${key}: Gatus's own settings; nothing to import`);
    } else if (!TRANSLATED_SECTIONS.has(key)) {
      notes.push(`${key}: not a Gatus setting this importer knows; ignored`);
    }
  }
  return notes;
}

/** The longest entity name; a window's name is its check's plus a suffix. */
const MAX_NAME_LENGTH = 63;

/** An imported check's own `maintenance-windows`, each over that check. */
function endpointMaintenance(
  check: ImportedCheck,
  windows: unknown[],
  options: GatusImportOptions,
): ImportedMaintenanceWindow[] {
  const { name, namespace } = check.entity.metadata;
  const imported: ImportedMaintenanceWindow[] = [];
  windows.forEach((window, index) => {
    const suffix = `-maintenance${windows.length > 1 ? `-${index + 1}` : ''}`;
    const where = `maintenance-windows[${index}]`;
    const translation = translateMaintenance(window, {
      where,
      name: `${name.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`,
      namespace: options.namespace,
      cover: { checks: [namespace ? `${namespace}/${name}` : name] },
      reason: `Gatus maintenance of the endpoint ${JSON.stringify(
        check.endpoint,
      )}`,
      owner: options.owner,
    });
    if (translation.kind === 'window') {
      check.notes.push(
        `${where}: imported as the MaintenanceWindow ${translation.entity.metadata.name}`,
      );
      imported.push({
        endpoint: check.endpoint,
        entity: translation.entity,
        notes: translation.notes,
      });
    } else {
      check.notes.push(...translation.reasons.map(r => `${r}; not imported`));
    }
  });
  return imported;
}

/**
 * The configuration's `maintenance`, which mutes every endpoint in Gatus:
 * one window over the systems of every imported check.
 */
function configMaintenance(
  maintenance: unknown,
  checks: ImportedCheck[],
  notes: string[],
  options: GatusImportOptions,
): ImportedMaintenanceWindow[] {
  if (maintenance === undefined) {
    return [];
  }
  const systems = [
    ...new Set(checks.flatMap(check => check.entity.spec.systems)),
  ].sort();
  if (systems.length === 0) {
    notes.push(
      'maintenance: no check was imported for it to cover; not imported',
    );
    return [];
  }
  const translation = translateMaintenance(maintenance, {
    where: 'maintenance',
    name: 'gatus-maintenance',
    namespace: options.namespace,
    cover: { systems },
    reason: 'Gatus maintenance, over every endpoint',
    owner: options.owner,
  });
  if (translation.kind === 'skipped') {
    notes.push(...translation.reasons.map(r => `${r}; not imported`));
    return [];
  }
  notes.push(
    `maintenance: imported as the MaintenanceWindow gatus-maintenance over ${systems.length} system(s): notifications held, statuses still shown`,
    ...translation.notes,
  );
  return [{ entity: translation.entity, notes: translation.notes }];
}

function groupOf(endpoint: GatusRecord): string | undefined {
  return typeof endpoint.group === 'string' && endpoint.group.trim() !== ''
    ? endpoint.group
    : undefined;
}

/** `group/name` as Gatus tells endpoints apart, or where it sits when it has no name. */
function endpointKey(endpoint: GatusRecord, position: string): string {
  if (typeof endpoint.name !== 'string' || endpoint.name.trim() === '') {
    return position;
  }
  const group = groupOf(endpoint);
  return group === undefined ? endpoint.name : `${group}/${endpoint.name}`;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
