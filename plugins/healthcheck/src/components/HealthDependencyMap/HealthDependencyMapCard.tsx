import {
  getCompoundEntityRef,
  RELATION_DEPENDENCY_OF,
  RELATION_DEPENDS_ON,
  RELATION_HAS_PART,
  RELATION_PART_OF,
} from '@backstage/catalog-model';
import {
  EntityInfoCard,
  useEntity,
  useEntityRefLink,
} from '@backstage/plugin-catalog-react';
import {
  Direction,
  EntityNode,
  EntityRelationsGraph,
  EntityRelationsGraphProps,
} from '@backstage/plugin-catalog-graph';
import { Alert, Button, Flex } from '@backstage/ui';
import { makeStyles } from '@material-ui/core/styles';
import { useCallback, useMemo } from 'react';
import { useNavigate } from 'react-router-dom';
import { HealthEntityNode } from './HealthEntityNode';
import { HealthLegend } from './HealthLegend';
import { useSystemsHealthError } from './useSystemsHealth';

/** Dependencies both ways, and what systems are made of. */
const DEFAULT_RELATIONS = [
  RELATION_DEPENDS_ON,
  RELATION_DEPENDENCY_OF,
  RELATION_PART_OF,
  RELATION_HAS_PART,
];
const DEFAULT_KINDS = ['system', 'component', 'resource'];

/**
 * Props of {@link HealthDependencyMapCard}: those of `EntityRelationsGraph`,
 * all optional, plus the card's title and the graph's height.
 * @public
 */
export type HealthDependencyMapCardProps =
  Partial<EntityRelationsGraphProps> & {
    title?: string;
    height?: number;
  };

const useStyles = makeStyles({
  graph: ({ height }: { height: number }) => ({ height, minHeight: 0 }),
});

/**
 * The current entity's dependencies and parts as a catalog graph whose nodes
 * show each system's health, with a legend; kept live. By default it follows
 * dependsOn/dependencyOf and partOf/hasPart between systems, components and
 * resources, two steps deep; every `EntityRelationsGraph` prop overrides.
 * Needs the catalog graph plugin's API (`catalogGraphApiRef`).
 * @public
 */
export function HealthDependencyMapCard(props: HealthDependencyMapCardProps) {
  const {
    title = 'Dependency health',
    height = 400,
    className,
    ...graphProps
  } = props;
  const { entity } = useEntity();
  const rootEntityNames = useMemo(() => getCompoundEntityRef(entity), [entity]);
  const classes = useStyles({ height });
  const openEntityPage = useOpenEntityPage();

  return (
    <EntityInfoCard title={title} className={className}>
      <Flex direction="column" gap="3">
        <HealthUnavailableAlert />
        <EntityRelationsGraph
          rootEntityNames={rootEntityNames}
          relations={DEFAULT_RELATIONS}
          kinds={DEFAULT_KINDS}
          maxDepth={2}
          unidirectional
          mergeRelations
          direction={Direction.LEFT_RIGHT}
          zoom="enable-on-click"
          onNodeClick={openEntityPage}
          renderNode={HealthEntityNode}
          {...graphProps}
          className={classes.graph}
        />
        <HealthLegend />
      </Flex>
    </EntityInfoCard>
  );
}

function useOpenEntityPage() {
  const entityLink = useEntityRefLink();
  const navigate = useNavigate();
  return useCallback(
    (node: EntityNode) => navigate(entityLink(node.entity)),
    [entityLink, navigate],
  );
}

function HealthUnavailableAlert() {
  const health = useSystemsHealthError();
  if (!health.error) {
    return null;
  }
  return (
    <Alert
      status="warning"
      icon
      title="Could not load the health of some systems; their nodes show none."
      description={health.error.message}
      customActions={
        <Button size="small" variant="secondary" onPress={health.retry}>
          Retry
        </Button>
      }
    />
  );
}
