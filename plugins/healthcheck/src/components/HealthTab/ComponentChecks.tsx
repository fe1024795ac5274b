import { Entity } from '@backstage/catalog-model';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Typography from '@material-ui/core/Typography';
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import { ReactNode, useCallback, useMemo, useState } from 'react';
import { checksTargetingComponent } from './componentChecks';

/**
 * What a Component's Health tab shows of its system: by default only the
 * checks that target the component, or all of them on request.
 */
export interface ComponentChecksView {
  /** The system with only the rows to show; undefined until it loads. */
  system: SystemHealthDetails | undefined;
  /** How many checks of the system target the component. */
  targeting: number;
  /** How many checks the system has. */
  total: number;
  showAll: boolean;
  toggleShowAll: () => void;
}

/**
 * The checks of the system that a Component's Health tab shows; undefined
 * on a System's page, which shows them all.
 */
export function useComponentChecks(
  system: SystemHealthDetails | undefined,
  component: Entity | undefined,
): ComponentChecksView | undefined {
  const [showAll, setShowAll] = useState(false);
  const toggleShowAll = useCallback(() => setShowAll(all => !all), []);
  const targeting = useMemo(
    () =>
      system && component
        ? checksTargetingComponent(system.checks, component)
        : undefined,
    [system, component],
  );
  // A new object only when the rows change, so the matrix keeps its state.
  const shown = useMemo(
    () =>
      system && targeting && !showAll
        ? { ...system, checks: targeting }
        : system,
    [system, targeting, showAll],
  );
  if (!component) {
    return undefined;
  }
  return {
    system: shown,
    targeting: targeting?.length ?? 0,
    total: system?.checks.length ?? 0,
    showAll,
    toggleShowAll,
  };
}

function checks(count: number): string {
  return `${count} ${count === 1 ? 'check' : 'checks'}`;
}

/**
 * Above a Component's Health tab: which checks of its system are shown and
 * why, with a switch between those that target the component and all.
 */
export function ComponentChecksCaption(props: {
  systemRef: string;
  view: ComponentChecksView;
}) {
  const { systemRef, view } = props;
  const system = <EntityRefLink entityRef={systemRef} defaultKind="system" />;
  const how = (
    <>
      A check names the components it probes in <code>spec.components</code>.
    </>
  );
  let text: ReactNode;
  if (view.total === 0) {
    text = <>This component is part of {system}.</>;
  } else if (view.targeting === 0 && !view.showAll) {
    text = (
      <>
        None of the {checks(view.total)} of {system} (the system this component
        is part of) target it. {how}
      </>
    );
  } else if (!view.showAll) {
    text = (
      <>
        This component is part of {system}.{' '}
        {view.targeting === 1
          ? 'Shown is the one check of that system that targets it.'
          : `Shown are the ${view.targeting} checks of that system that target it.`}{' '}
        {how}
      </>
    );
  } else {
    let targeting = `${view.targeting} of them target`;
    if (view.targeting === 0) targeting = 'none of them targets';
    if (view.targeting === 1) targeting = 'one of them targets';
    text = (
      <>
        This component is part of {system}. Shown are all {checks(view.total)}{' '}
        of that system; {targeting} this component.
      </>
    );
  }
  return (
    <Box mb={2}>
      <Typography variant="body2" color="textSecondary">
        {text}
      </Typography>
      {view.total > 0 && view.targeting < view.total && (
        <Button size="small" color="primary" onClick={view.toggleShowAll}>
          {view.showAll
            ? 'Show only the checks that target this component'
            : `Show all ${checks(view.total)} of the system`}
        </Button>
      )}
    </Box>
  );
}
