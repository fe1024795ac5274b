import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import { NotFoundError } from '@backstage/errors';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { CheckDetails } from '@vigil/plugin-healthcheck-common';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import type { CheckAccess, CheckPermission } from '../permissions/CheckAccess';
import { checkResourceOf } from '../permissions/checkResource';
import { readCheckDetails } from './readCheckDetails';

/**
 * Reads one check as a caller may see it.
 * @internal
 */
export interface CheckReader {
  /** The check by id, as the caller may read it in the store or catalog; else 404. */
  readCheck(
    id: string,
    credentials: BackstageCredentials,
  ): Promise<CheckDetails>;
  /**
   * The check if the caller may see it, else 404 (as for one that does not
   * exist); then 403 unless the policy allows `permission` on it.
   */
  authorizedCheck(
    id: string,
    credentials: BackstageCredentials,
    permission?: CheckPermission,
  ): Promise<CheckDetails>;
}

/**
 * A {@link CheckReader} over the store (API checks), the catalog (GitOps
 * checks) and the caller's access.
 * @internal
 */
export function createCheckReader(deps: {
  store: Pick<HealthcheckStore, 'getCheck'>;
  catalog: CatalogService;
  access: CheckAccess;
}): CheckReader {
  const { store, catalog, access } = deps;
  async function readCheck(id: string, credentials: BackstageCredentials) {
    const [check] = await readCheckDetails({
      ids: [id],
      store,
      catalog,
      credentials,
    });
    if (!check) {
      throw new NotFoundError(`There is no check with id '${id}'`);
    }
    return check;
  }
  return {
    readCheck,
    async authorizedCheck(id, credentials, permission) {
      const check = await readCheck(id, credentials);
      await access.authorize(checkResourceOf(check), credentials, permission);
      return check;
    },
  };
}
