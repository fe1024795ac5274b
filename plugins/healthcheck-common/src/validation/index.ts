export * from './validateHealthCheckSpec';
export * from './probeConfigValidation';
