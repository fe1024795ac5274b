export * from './checks';
export * from './objectives';
export * from './systems';
