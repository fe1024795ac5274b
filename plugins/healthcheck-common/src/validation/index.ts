export * from './validateHealthCheckSpec';
export * from './probeConfigValidation';
export * from './problemPath';
export * from './validateMaintenanceWindowSpec';
export * from './validateServiceLevelObjectiveSpec';
