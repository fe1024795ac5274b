export { presentStatus, systemRefOfEntity } from './statusPresentation';
export type { StatusPresentation } from './statusPresentation';
