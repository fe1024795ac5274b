export * from './checks';
export * from './systems';
export * from './HealthcheckSystemsClient';
