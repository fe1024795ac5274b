export { MaintenanceBanner, MaintenanceMarker } from './MaintenanceNote';
export {
  describeCurrentWindow,
  isInMaintenance,
  maintenanceUntil,
} from './maintenanceText';
