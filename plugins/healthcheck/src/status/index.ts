export {
  presentStatus,
  STALE_ROLLUP_NOTE,
  systemRefOfEntity,
} from './statusPresentation';
export type { StatusPresentation } from './statusPresentation';
export { upstreamCausesOf } from './upstreamCauses';
