/** A health check created through the API, as stored. */
export interface StoredCheck {
  id: string;
  title?: string;
  spec: Record<string, unknown>;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The plugin's own tables. */
export interface HealthcheckStore {
  listChecks(): Promise<StoredCheck[]>;
  insertCheck(
    check: Pick<StoredCheck, 'id' | 'title' | 'spec' | 'createdBy'>,
  ): Promise<StoredCheck>;
}
