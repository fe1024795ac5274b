export {
  listConcerns,
  liveKeyOf,
  useLiveRefresh,
  POLL_INTERVAL_MS,
} from './useLiveRefresh';
export { useSystemHealth } from './useSystemHealth';
