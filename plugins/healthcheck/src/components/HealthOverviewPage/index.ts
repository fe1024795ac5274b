export {
  HealthOverviewPage,
  HealthSystemsContent,
  HealthChecksContent,
} from './HealthOverviewPage';
