export { SloCard } from './SloCard';
export { formatAttainment, formatBudgetLeft, formatTarget } from './sloText';
