/**
 * Isomorphic types of the Vigil health-check plugin: the HealthCheck entity,
 * statuses, and the condition language.
 *
 * @packageDocumentation
 */
export * from './entity';
export * from './status';
export * from './conditions';
export * from './model';
export * from './permissions';
export * from './api';
