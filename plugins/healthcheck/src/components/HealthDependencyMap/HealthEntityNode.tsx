import { DEFAULT_NAMESPACE } from '@backstage/catalog-model';
import { DependencyGraphTypes } from '@backstage/core-components';
import { useEntityPresentation } from '@backstage/plugin-catalog-react';
import { EntityNode } from '@backstage/plugin-catalog-graph';
import { makeStyles } from '@material-ui/core/styles';
import { useLayoutEffect, useRef, useState } from 'react';
import { useHealthColor } from '../HealthStatusBadge/StatusIcon';
import { useEntityNodeHealth } from './useSystemsHealth';

const PADDING = 10;
const ICON_SIZE = 20;
const ICON_GAP = 8;
const NAME_LINE_HEIGHT = 18;
/** The border of a node whose system is in maintenance. */
const MAINTENANCE_DASHES = '6 3';

const useStyles = makeStyles(theme => ({
  border: {
    fill: theme.palette.background.paper,
    stroke: theme.palette.divider,
    strokeWidth: 2,
  },
  focusedBorder: { strokeWidth: 4 },
  name: { fill: theme.palette.text.primary, fontSize: 14 },
  focusedName: { fontWeight: 'bold' },
  status: { fill: theme.palette.text.secondary, fontSize: 12 },
  clickable: { cursor: 'pointer' },
}));

/**
 * A catalog graph node that shows its entity's health: the name, and the
 * status of the entity's system as icon, word and border colour, kept live;
 * a system in maintenance says so after the status and has a dashed border,
 * its colour unchanged.
 * Pass it as `renderNode` of the stock `CatalogGraphPage`,
 * `EntityCatalogGraphCard` or `EntityRelationsGraph`; nothing needs to wrap
 * them. The nodes of an app share what they load: each system shown is asked
 * for once, whatever the catalog's size.
 * @public
 */
export function HealthEntityNode(
  props: DependencyGraphTypes.RenderNodeProps<EntityNode>,
) {
  // The graph calls renderNode as a function; render a component so the
  // node's hooks are its own.
  return <HealthEntityNodeView node={props.node} />;
}

function HealthEntityNodeView(props: { node: EntityNode }) {
  const { entity, focused, onClick } = props.node;
  const classes = useStyles();
  const health = useEntityNodeHealth(entity);
  const color = useHealthColor(health?.paletteKey);
  const { primaryTitle, entityRef } = useEntityPresentation(entity, {
    defaultNamespace: DEFAULT_NAMESPACE,
  });
  // In words beside the status, and a dashed border in the status colour:
  // maintenance never changes the colour, which stays the true status.
  const statusText = health?.inMaintenance
    ? `${health.label} · in maintenance`
    : health?.label;
  const textSize = useRenderedSize(`${primaryTitle} ${statusText} ${focused}`);

  const iconSpace = health ? ICON_SIZE + ICON_GAP : 0;
  const width = PADDING * 2 + iconSpace + textSize.width;
  const height =
    PADDING * 2 + Math.max(textSize.height, health ? ICON_SIZE : 0);

  return (
    <g onClick={onClick} className={onClick ? classes.clickable : undefined}>
      <title>{health ? `${entityRef}: ${statusText}` : entityRef}</title>
      <rect
        className={`${classes.border} ${focused ? classes.focusedBorder : ''}`}
        style={health ? { stroke: color } : undefined}
        strokeDasharray={health?.inMaintenance ? MAINTENANCE_DASHES : undefined}
        width={width}
        height={height}
        rx={8}
      />
      {health && (
        <health.Icon
          x={PADDING}
          y={(height - ICON_SIZE) / 2}
          size={ICON_SIZE}
          color={color}
          aria-hidden
        />
      )}
      <g
        ref={textSize.ref}
        transform={`translate(${PADDING + iconSpace}, ${PADDING})`}
      >
        <text
          className={`${classes.name} ${focused ? classes.focusedName : ''}`}
          dominantBaseline="hanging"
        >
          {primaryTitle}
        </text>
        {health && (
          <text
            className={classes.status}
            y={NAME_LINE_HEIGHT}
            dominantBaseline="hanging"
          >
            {statusText}
          </text>
        )}
      </g>
    </g>
  );
}

/** The size an SVG element was drawn at, measured when its content changed. */
function useRenderedSize(content: string) {
  const ref = useRef<SVGGElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    if (!ref.current) {
      return;
    }
    const box = ref.current.getBBox();
    const width = Math.round(box.width);
    const height = Math.round(box.height);
    if (width !== size.width || height !== size.height) {
      setSize({ width, height });
    }
  }, [content, size.width, size.height]);
  return { ref, ...size };
}
