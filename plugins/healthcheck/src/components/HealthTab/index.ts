export {
  EntityHealthContent,
  isHealthTabAvailable,
  type EntityHealthContentProps,
} from './EntityHealthContent';
