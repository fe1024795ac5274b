/**
 * vigil-import-gatus: Gatus configuration in, Vigil HealthCheck entities
 * out, and a report of what could not be carried over.
 *
 * @packageDocumentation
 */
export { main } from './cli/main';
export type { CliOutput } from './cli/main';
export { summaryLine } from './cli/formatReport';
export { readGatusConfig } from './io/readGatusConfig';
export { checkFiles } from './io/writeCheckFiles';
export {
  GATUS_ENDPOINT_ANNOTATION,
  translateGatusConfig,
} from './translate/translateGatusConfig';
export type {
  GatusImportOptions,
  GatusImportResult,
  ImportedCheck,
  ReportedEndpoint,
} from './translate/translateGatusConfig';
export type { SecretToDeclare } from './translate/validateImportedEntity';
