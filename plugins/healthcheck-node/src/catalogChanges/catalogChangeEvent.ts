/**
 * The topic on which Vigil's catalog module says which systems an entity's
 * change touches, so the backend re-derives their slices at once instead of
 * at its next catalog poll. Backstage 1.55's catalog publishes no change
 * events of its own.
 * @public
 */
export const CATALOG_CHANGES_TOPIC = 'vigil.catalog.changes';

/**
 * One catalog entity whose content changed as the catalog processed it.
 * @public
 */
export interface CatalogChangeEvent {
  /** The entity that changed, as `kind:namespace/name`. */
  entityRef: string;
  /**
   * The systems whose slices it shapes, before and after the change (a
   * Component that moved names both), as canonical lower-case refs.
   */
  systems: string[];
  /**
   * The change may shape any system: an Environment changed, or the entity
   * names more systems than one event lists ({@link MAX_SYSTEMS_PER_CHANGE}).
   */
  allSystems?: boolean;
}

/**
 * The most systems one event lists; a change that touches more says
 * `allSystems` instead.
 * @public
 */
export const MAX_SYSTEMS_PER_CHANGE = 100;
const MAX_REF_LENGTH = 512;

/**
 * The event in a payload from the events service, or why it is not one: any plugin may publish on any topic, so what
 * arrives is read, not trusted.
 * @public
 */
export function readCatalogChangeEvent(
  payload: unknown,
): { event: CatalogChangeEvent } | { problem: string } {
  if (typeof payload !== 'object' || payload === null) {
    return { problem: 'the payload is not an object' };
  }
  const { entityRef, systems, allSystems } = payload as Record<string, unknown>;
  if (!isRef(entityRef)) {
    return { problem: 'entityRef is not an entity ref' };
  }
  if (
    !Array.isArray(systems) ||
    systems.length > MAX_SYSTEMS_PER_CHANGE ||
    !systems.every(isRef)
  ) {
    return {
      problem: `systems is not a list of at most ${MAX_SYSTEMS_PER_CHANGE} entity refs`,
    };
  }
  if (allSystems !== undefined && typeof allSystems !== 'boolean') {
    return { problem: 'allSystems is not a boolean' };
  }
  return {
    event: {
      entityRef,
      systems: systems.map(ref => ref.toLowerCase()),
      ...(allSystems ? { allSystems } : {}),
    },
  };
}

function isRef(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_REF_LENGTH &&
    /^[^:/\s]+:[^:/\s]+\/[^\s]+$/.test(value)
  );
}
