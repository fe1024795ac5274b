import { Link, Progress } from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import { EntityInfoCard, useEntity } from '@backstage/plugin-catalog-react';
import { Alert, Button, Text } from '@backstage/ui';
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import { useSystemHealth } from '../../hooks';
import { rootRouteRef } from '../../routes';
import { systemRefOfEntity } from '../../status';
import { CopyBadgeMarkdownButton } from '../HealthStatusBadge';
import { hasNoChecks } from '../HealthStatusBadge/healthPresentation';
import { HealthSummary } from './HealthSummary';

/**
 * Props of {@link EntityHealthOverviewCard}.
 * @public
 */
export interface EntityHealthOverviewCardProps {
  /** The card's title; "Health" by default. */
  title?: string;
}

/**
 * The health of the current entity's system (a System's own, or that of the
 * system a Component or Resource belongs to), kept live: the badge, how many
 * checks are healthy, the worst environment and when it was last updated.
 * A whole card, for the entity overview page of either frontend system.
 * @public
 */
export function EntityHealthOverviewCard(props: EntityHealthOverviewCardProps) {
  const { entity } = useEntity();
  const systemRef = systemRefOfEntity(entity);
  const health = useSystemHealth(systemRef);
  const { value } = health;

  return (
    <EntityInfoCard
      title={props.title ?? 'Health'}
      headerActions={
        systemRef &&
        value &&
        !hasNoChecks(value) && (
          <CopyBadgeMarkdownButton
            systemRef={systemRef}
            name={value.title ?? value.name}
          />
        )
      }
    >
      {systemRef ? (
        <HealthOverviewContent {...health} />
      ) : (
        <Text color="secondary">
          This entity is not part of a system, so it has no health checks.
        </Text>
      )}
    </EntityInfoCard>
  );
}

function HealthOverviewContent(props: {
  value?: SystemHealthDetails;
  loading: boolean;
  error?: Error;
  retry: () => void;
}) {
  const { value, loading, error, retry } = props;
  if (loading && !value) {
    return <Progress />;
  }
  if (error) {
    return (
      <Alert
        status="danger"
        icon
        title="Could not load the health of this system"
        description={error.message}
        customActions={
          <Button size="small" variant="secondary" onPress={retry}>
            Retry
          </Button>
        }
      />
    );
  }
  if (!value || hasNoChecks(value)) {
    return <NoHealthChecksYet />;
  }
  return <HealthSummary rollup={value} />;
}

function NoHealthChecksYet() {
  const healthPageLink = useHealthPageLink();
  return (
    <Text as="p" color="secondary">
      No health checks yet: add a HealthCheck entity next to catalog-info.yaml
      or create one on the{' '}
      {healthPageLink ? (
        <Link to={healthPageLink}>Health page</Link>
      ) : (
        'Health page'
      )}
      .
    </Text>
  );
}

/**
 * The path of the Health page, or `undefined` in an app that does not mount
 * it. `useRouteRef` throws for a route that is not mounted; it calls the same
 * hooks either way, so catching keeps the order of hooks.
 */
function useHealthPageLink(): string | undefined {
  try {
    return useRouteRef(rootRouteRef)();
  } catch {
    return undefined;
  }
}
