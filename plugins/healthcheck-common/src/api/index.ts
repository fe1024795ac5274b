export * from './checks';
export * from './systems';
