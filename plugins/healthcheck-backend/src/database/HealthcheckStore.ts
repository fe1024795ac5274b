import { HealthCheckSpec } from '@vigil/plugin-healthcheck-common';

/**
 * A health check created through the API, as stored.
 * @internal
 */
export interface StoredCheck {
  id: string;
  title?: string;
  spec: HealthCheckSpec;
  /** 1 when created, one more on every update. */
  revision: number;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

/**
 * What a caller gives to create a check.
 * @internal
 */
export type NewCheck = Pick<StoredCheck, 'id' | 'title' | 'spec' | 'createdBy'>;

/**
 * What a caller gives to replace a check's title and spec.
 * @internal
 */
export interface CheckUpdate {
  id: string;
  title?: string;
  spec: HealthCheckSpec;
  updatedBy: string;
  /**
   * The revision the caller read. When given and no longer current, the
   * update is refused with a ConflictError instead of overwriting a change
   * the caller has not seen.
   */
  expectedRevision?: number;
}

/**
 * The plugin's own tables.
 * @internal
 */
export interface HealthcheckStore {
  listChecks(): Promise<StoredCheck[]>;
  /** The check, or undefined when there is none with that id. */
  getCheck(id: string): Promise<StoredCheck | undefined>;
  /** @throws ConflictError when the id is taken. */
  createCheck(check: NewCheck): Promise<StoredCheck>;
  /**
   * Replaces title and spec, and returns the check before and after.
   *
   * @throws NotFoundError when there is no such check.
   * @throws ConflictError when `expectedRevision` is not the current one.
   */
  updateCheck(
    update: CheckUpdate,
  ): Promise<{ before: StoredCheck; after: StoredCheck }>;
  /**
   * Deletes the check and returns it as it was.
   *
   * @throws NotFoundError when there is no such check.
   * @throws ConflictError when `expectedRevision` is not the current one.
   */
  deleteCheck(
    id: string,
    options?: { expectedRevision?: number },
  ): Promise<StoredCheck>;
}
