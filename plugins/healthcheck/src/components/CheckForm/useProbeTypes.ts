import {
  discoveryApiRef,
  fetchApiRef,
  useApi,
} from '@backstage/core-plugin-api';
import { DefaultApiClient } from '@vigil/plugin-healthcheck-common/client';
import useAsync from 'react-use/esm/useAsync';
import { BUILTIN_PROBE_TYPES } from './formValues';

/**
 * The probe types the backend knows (`GET /v1/probe-types`), built-in and
 * from modules; the built-in ones while loading or when it cannot be asked.
 * @internal
 */
export function useProbeTypes(): { types: string[]; loading: boolean } {
  const discoveryApi = useApi(discoveryApiRef);
  const fetchApi = useApi(fetchApiRef);
  const { value, loading } = useAsync(async () => {
    try {
      const response = await new DefaultApiClient({
        discoveryApi,
        fetchApi,
      }).listProbeTypes({});
      if (!response.ok) {
        return undefined;
      }
      const types = ((await response.json()).items ?? []).filter(
        (type): type is string => typeof type === 'string' && !!type,
      );
      return types.length > 0 ? types : undefined;
    } catch {
      return undefined;
    }
  }, [discoveryApi, fetchApi]);
  return { types: value ?? BUILTIN_PROBE_TYPES, loading };
}
