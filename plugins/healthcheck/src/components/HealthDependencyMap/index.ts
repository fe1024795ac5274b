export { HealthDependencyMapCard } from './HealthDependencyMapCard';
export type { HealthDependencyMapCardProps } from './HealthDependencyMapCard';
export { HealthEntityNode } from './HealthEntityNode';
export { HealthLegend } from './HealthLegend';
