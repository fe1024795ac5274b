import { Text } from '@backstage/ui';
import { makeStyles } from '@material-ui/core/styles';
import { RiToolsLine } from '@remixicon/react';
import { presentStatus } from '../../status';
import {
  NO_CHECKS,
  STATUSES_WORST_FIRST,
} from '../HealthStatusBadge/healthPresentation';
import { StatusIcon } from '../HealthStatusBadge/StatusIcon';

const LEGEND = [...STATUSES_WORST_FIRST.map(presentStatus), NO_CHECKS];

const useStyles = makeStyles(theme => ({
  legend: {
    display: 'flex',
    flexWrap: 'wrap',
    gap: theme.spacing(2),
    listStyle: 'none',
    margin: 0,
    padding: 0,
  },
  item: { display: 'flex', alignItems: 'center', gap: theme.spacing(0.5) },
}));

/**
 * What the health graph's colours and icons mean: icon and word of each
 * status, of "No checks", and how a system in maintenance looks.
 * @public
 */
export function HealthLegend() {
  const classes = useStyles();
  return (
    <ul aria-label="Health legend" className={classes.legend}>
      {LEGEND.map(presentation => (
        <li key={presentation.label} className={classes.item}>
          <StatusIcon presentation={presentation} />
          <Text variant="body-small">{presentation.label}</Text>
        </li>
      ))}
      <li className={classes.item}>
        <RiToolsLine size={16} aria-hidden="true" />
        <Text variant="body-small">In maintenance: dashed border</Text>
      </li>
    </ul>
  );
}
