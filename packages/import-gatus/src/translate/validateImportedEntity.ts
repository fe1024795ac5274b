import {
  Entity,
  FieldFormatEntityPolicy,
  SchemaValidEntityPolicy,
} from '@backstage/catalog-model';
import {
  formatSpecProblems,
  probeTypeLookup,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  builtinProbeTypeDeclarations,
  ProbeSecrets,
  secretUsesOf,
  targetOrigin,
} from '@vigil/plugin-healthcheck-node';

/** A secret an imported check references, and the origins it is sent to. */
export interface SecretToDeclare {
  name: string;
  /** `https://host`, `tcp://host:port`: what `allowedOrigins` must list. */
  allowedOrigins: string[];
  /** The entity names of the checks that reference it. */
  usedBy: string[];
}

const envelopePolicies = [
  new SchemaValidEntityPolicy(),
  new FieldFormatEntityPolicy(),
];
const probeTypes = probeTypeLookup(builtinProbeTypeDeclarations());

/**
 * What the catalog would refuse in an imported entity, one sentence each:
 * the envelope as Backstage validates every entity, and the spec as the
 * HealthCheck processor does, with the built-in probe types and with the
 * secrets declared as {@link secretsToDeclare} suggests.
 */
export async function findImportedEntityProblems(
  entity: Entity,
  secrets: ReadonlyArray<SecretToDeclare>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const policy of envelopePolicies) {
    try {
      await policy.enforce(entity);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  problems.push(
    ...formatSpecProblems(
      validateHealthCheckSpec(entity.spec, {
        probeTypes,
        defaultNamespace: entity.metadata.namespace ?? 'default',
        secrets: secretUsesOf(
          new ProbeSecrets(
            Object.fromEntries(
              // A secret with no origin has a target that does not parse,
              // which the validator reports on its own.
              secrets
                .filter(secret => secret.allowedOrigins.length > 0)
                .map(secret => [
                  secret.name,
                  // The value is the operator's; only the policy is judged here.
                  { value: 'imported', allowedOrigins: secret.allowedOrigins },
                ]),
            ),
          ),
        ),
      }),
    ),
  );
  return problems;
}

/**
 * The secrets that checks reference, each with the origins of the checks
 * that send it (every `allowedOrigins` entry it needs).
 */
export function secretsToDeclare(
  uses: ReadonlyArray<{
    entityName: string;
    type: string;
    target: string;
    secrets: string[];
  }>,
): SecretToDeclare[] {
  const byName = new Map<string, { origins: Set<string>; usedBy: string[] }>();
  for (const use of uses) {
    for (const name of use.secrets) {
      const entry = byName.get(name) ?? { origins: new Set(), usedBy: [] };
      // As people write them: the scheme's own port left out.
      const origin = targetOrigin(use.type, use.target)
        ?.replace(/^(https:\/\/.*):443$/, '$1')
        .replace(/^(http:\/\/.*):80$/, '$1');
      if (origin) {
        entry.origins.add(origin);
      }
      entry.usedBy.push(use.entityName);
      byName.set(name, entry);
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, { origins, usedBy }]) => ({
      name,
      allowedOrigins: [...origins].sort(),
      usedBy,
    }));
}
