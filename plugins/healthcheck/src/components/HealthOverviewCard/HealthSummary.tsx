import { Flex, Text } from '@backstage/ui';
import { SystemRollup } from '@vigil/plugin-healthcheck-common';
import { STALE_ROLLUP_NOTE } from '../../status';
import { HealthStatusBadge } from '../HealthStatusBadge';
import { formatRelative } from '../../format/relativeTime';
import { worstEnvironment } from './worstEnvironment';

function checksHealthy(rollup: Pick<SystemRollup, 'healthy' | 'total'>) {
  const noun = rollup.total === 1 ? 'check' : 'checks';
  return `${rollup.healthy} of ${rollup.total} ${noun} healthy`;
}

/**
 * A system's health at a glance: its badge, how many checks are healthy,
 * its worst environment and when the rollup was computed.
 */
export function HealthSummary(props: { rollup: SystemRollup }) {
  const { rollup } = props;
  const worst = worstEnvironment(rollup.environments);
  return (
    <Flex direction="column" gap="3" align="start">
      <Flex align="center" gap="2">
        <HealthStatusBadge rollup={rollup} size="medium" />
        <Text>{checksHealthy(rollup)}</Text>
      </Flex>
      {worst && (
        <Flex align="center" gap="2">
          <Text color="secondary">Worst environment</Text>
          <Text weight="bold">{worst.name}</Text>
          <HealthStatusBadge
            status={worst.status}
            reasons={rollup.reasons.filter(
              reason => reason.environment === worst.name,
            )}
          />
        </Flex>
      )}
      <Text variant="body-small" color="secondary">
        Updated{' '}
        <time
          dateTime={rollup.updatedAt}
          title={new Date(rollup.updatedAt).toLocaleString()}
        >
          {formatRelative(rollup.updatedAt)}
        </time>
        {rollup.stale && <> · {STALE_ROLLUP_NOTE}</>}
      </Text>
    </Flex>
  );
}
