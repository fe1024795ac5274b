import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { HealthStatus } from '@vigil/plugin-healthcheck-common';
import {
  RiCheckboxCircleFill,
  RiCloseCircleFill,
  RiErrorWarningFill,
  RiPauseCircleFill,
  RiQuestionFill,
  type RemixiconComponentType,
} from '@remixicon/react';

/**
 * How a status looks everywhere in the plugin: a word, an icon and a colour,
 * never the colour alone. Colours are the theme's status colours.
 * @public
 */
export interface StatusPresentation {
  label: string;
  Icon: RemixiconComponentType;
  /** A key of Backstage's theme `palette.status`. */
  paletteKey: 'ok' | 'warning' | 'error' | 'pending' | 'aborted';
}

const PRESENTATION: Record<HealthStatus, StatusPresentation> = {
  healthy: { label: 'Healthy', Icon: RiCheckboxCircleFill, paletteKey: 'ok' },
  degraded: {
    label: 'Degraded',
    Icon: RiErrorWarningFill,
    paletteKey: 'warning',
  },
  unhealthy: {
    label: 'Unhealthy',
    Icon: RiCloseCircleFill,
    paletteKey: 'error',
  },
  unknown: { label: 'Unknown', Icon: RiQuestionFill, paletteKey: 'pending' },
  paused: { label: 'Paused', Icon: RiPauseCircleFill, paletteKey: 'aborted' },
};

/**
 * What the plugin says beside a rollup the backend marked `stale`: the last
 * one it read before the database became unreachable.
 * @internal
 */
export const STALE_ROLLUP_NOTE = 'Last known, the database is unreachable';

/** @public */
export function presentStatus(status: HealthStatus): StatusPresentation {
  return PRESENTATION[status] ?? PRESENTATION.unknown;
}

/**
 * The system whose health an entity page shows: a System itself, or the
 * system a Component or Resource belongs to. Canonical (lower-case) ref.
 * @public
 */
export function systemRefOfEntity(entity: Entity): string | undefined {
  if (entity.kind.toLowerCase() === 'system') {
    return stringifyEntityRef(entity).toLowerCase();
  }
  const system = entity.spec?.system;
  if (typeof system !== 'string' || !system) {
    return undefined;
  }
  try {
    return stringifyEntityRef(
      parseEntityRef(system, {
        defaultKind: 'system',
        defaultNamespace: entity.metadata.namespace ?? 'default',
      }),
    ).toLowerCase();
  } catch {
    return undefined;
  }
}
