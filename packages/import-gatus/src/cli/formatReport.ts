import { stringify } from 'yaml';
import { GatusImportResult } from '../translate/translateGatusConfig';

/** The line that sums an import up. */
export function summaryLine(counts: {
  endpoints: number;
  converted: number;
  reported: number;
}): string {
  return `gatus import: ${counts.endpoints} endpoints, ${counts.converted} converted, ${counts.reported} reported`;
}

/**
 * What the operator reads after an import: each endpoint's fate with its
 * notes or reasons, the configuration-wide notes, the secrets to declare
 * (as a `healthcheck.secrets` snippet) and the systems to check exist, then
 * the summary line.
 */
export function formatReport(result: GatusImportResult): string {
  const lines: string[] = [];
  for (const check of result.checks) {
    lines.push(`converted  ${check.endpoint} -> ${check.entity.metadata.name}`);
    lines.push(...check.notes.map(note => `    note: ${note}`));
  }
  for (const window of result.maintenanceWindows) {
    lines.push(
      `maintenance ${window.endpoint ?? '(every endpoint)'} -> ${
        window.entity.metadata.name
      } (${window.entity.spec.cron} for ${window.entity.spec.duration}, ${
        window.entity.spec.timezone
      })`,
    );
    lines.push(...window.notes.map(note => `    note: ${note}`));
  }
  for (const endpoint of result.reported) {
    const where =
      endpoint.section === 'endpoints' ? '' : ` (${endpoint.section})`;
    lines.push(`reported   ${endpoint.endpoint}${where}`);
    lines.push(...endpoint.reasons.map(reason => `    ${reason}`));
  }
  if (result.notes.length > 0) {
    lines.push('', 'Configuration:');
    lines.push(...result.notes.map(note => `  ${note}`));
  }
  if (result.secrets.length > 0) {
    lines.push(
      '',
      'Secrets the checks reference: declare them in app-config.yaml (the values stay in the environment):',
      '',
      stringify(
        {
          healthcheck: {
            secrets: Object.fromEntries(
              result.secrets.map(secret => [
                secret.name,
                {
                  value: `\${${secret.name}}`,
                  allowedOrigins: secret.allowedOrigins,
                },
              ]),
            ),
          },
        },
        { lineWidth: 0 },
      ).trimEnd(),
    );
  }
  if (result.systems.length > 0) {
    lines.push(
      '',
      `Systems the checks are assigned to (they must exist in the catalog): ${result.systems.join(
        ', ',
      )}`,
    );
  }
  lines.push(
    '',
    summaryLine({
      endpoints: result.endpointCount,
      converted: result.checks.length,
      reported: result.reported.length,
    }),
  );
  return `${lines.join('\n')}\n`;
}
