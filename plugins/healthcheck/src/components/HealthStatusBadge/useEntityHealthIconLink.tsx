import { useEntity } from '@backstage/plugin-catalog-react';
import { useSystemHealth } from '../../hooks';
import { systemRefOfEntity } from '../../status';
import { presentHealth } from './healthPresentation';
import { StatusIcon } from './StatusIcon';

/**
 * The props of an entity icon link that shows the entity's system health:
 * its status as icon and word, linking to the Health tab.
 * @internal
 */
export function useEntityHealthIconLink() {
  const { entity } = useEntity();
  const systemRef = systemRefOfEntity(entity);
  const { value, loading } = useSystemHealth(systemRef);
  const presentation = presentHealth(value);
  return {
    label: loading ? 'Health…' : presentation.label,
    title: value?.reasons.length
      ? value.reasons
          .map(r => `${r.checkId} in ${r.environment}: ${r.display}`)
          .join('\n')
      : `Health: ${presentation.label}`,
    icon: <StatusIcon presentation={presentation} size={20} />,
    href: 'health',
  };
}
