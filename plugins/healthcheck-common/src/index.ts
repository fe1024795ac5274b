/**
 * Isomorphic types of the Vigil health-check plugin: the HealthCheck entity,
 * statuses, the condition language, and the validator of a check spec.
 *
 * @packageDocumentation
 */
export * from './entity';
export * from './status';
export * from './conditions';
export * from './model';
export * from './permissions';
export * from './api';
export * from './validation';
