export { HealthStatusBadge } from './HealthStatusBadge';
export type { HealthStatusBadgeProps } from './HealthStatusBadge';
export { EntityHealthStatusBadge } from './EntityHealthStatusBadge';
export type { EntityHealthStatusBadgeProps } from './EntityHealthStatusBadge';
export {
  CopyBadgeMarkdownButton,
  useCopyBadgeMarkdown,
  useCopyEntityBadgeMarkdown,
} from './CopyBadgeMarkdownButton';
export type { CopyBadgeMarkdownButtonProps } from './CopyBadgeMarkdownButton';
export { useEntityHealthIconLink } from './useEntityHealthIconLink';
