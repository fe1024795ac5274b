export { HealthDependencyMapCard } from './HealthDependencyMapCard';
export type { HealthDependencyMapCardProps } from './HealthDependencyMapCard';
export { HealthEntityNode } from './HealthEntityNode';
export { HealthNodesProvider } from './HealthNodesProvider';
export type { HealthNodesProviderProps } from './HealthNodesProvider';
export { HealthLegend } from './HealthLegend';
