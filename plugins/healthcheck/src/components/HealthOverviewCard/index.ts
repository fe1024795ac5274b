export { EntityHealthOverviewCard } from './EntityHealthOverviewCard';
export type { EntityHealthOverviewCardProps } from './EntityHealthOverviewCard';
