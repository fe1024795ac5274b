import { useEntity } from '@backstage/plugin-catalog-react';
import {
  Badge,
  Flex,
  Focusable,
  Skeleton,
  Tooltip,
  TooltipTrigger,
} from '@backstage/ui';
import { RiErrorWarningLine } from '@remixicon/react';
import { SystemRollup } from '@vigil/plugin-healthcheck-common';
import { useSystemHealth } from '../../hooks';
import { systemRefOfEntity } from '../../status';
import { CopyBadgeMarkdownButton } from './CopyBadgeMarkdownButton';
import { HealthStatusBadge } from './HealthStatusBadge';
import { hasNoChecks } from './healthPresentation';
import { shortRef } from './shortRef';
import { StatusIcon } from './StatusIcon';

/** What a system the backend does not know is shown as: no checks. */
export const NO_CHECKS_ROLLUP: Pick<
  SystemRollup,
  'status' | 'total' | 'reasons' | 'upstream'
> = { status: 'unknown', total: 0, reasons: [], upstream: [] };

/**
 * Props of {@link EntityHealthStatusBadge}.
 * @public
 */
export interface EntityHealthStatusBadgeProps {
  /** Hide the button that copies the badge's Markdown. */
  hideCopyMarkdown?: boolean;
}

/**
 * The live health badge of the current entity's system: a System's own, or
 * that of the system a Component or Resource belongs to. Shows "No checks"
 * for a system without checks and nothing for an entity without a system.
 * @public
 */
export function EntityHealthStatusBadge(props: EntityHealthStatusBadgeProps) {
  const { entity } = useEntity();
  const systemRef = systemRefOfEntity(entity);
  const { value, loading, error } = useSystemHealth(systemRef);

  if (!systemRef) {
    return null;
  }
  if (error) {
    return <HealthUnavailableBadge error={error} />;
  }
  if (loading && !value) {
    return <Skeleton width={96} height={26} aria-label="Loading health" />;
  }
  const name = value?.title ?? value?.name ?? shortRef(systemRef, 'system');
  return (
    <Flex align="center" gap="1">
      <HealthStatusBadge rollup={value ?? NO_CHECKS_ROLLUP} />
      {!props.hideCopyMarkdown && !hasNoChecks(value) && (
        <CopyBadgeMarkdownButton systemRef={systemRef} name={name} />
      )}
    </Flex>
  );
}

function HealthUnavailableBadge(props: { error: Error }) {
  return (
    <TooltipTrigger>
      <Focusable>
        <Badge
          role="img"
          aria-label="Health unavailable"
          tabIndex={0}
          icon={
            <StatusIcon
              presentation={{ label: 'Unavailable', Icon: RiErrorWarningLine }}
            />
          }
        >
          Health unavailable
        </Badge>
      </Focusable>
      <Tooltip>{props.error.message}</Tooltip>
    </TooltipTrigger>
  );
}
