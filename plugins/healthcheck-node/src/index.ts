/**
 * Extension points of the Vigil health-check backend, for modules that add
 * probe types.
 *
 * @packageDocumentation
 */
export * from './probes';
