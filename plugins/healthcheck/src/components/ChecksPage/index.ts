export { ChecksPage } from './ChecksPage';
