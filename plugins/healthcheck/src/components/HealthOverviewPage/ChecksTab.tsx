import {
  EmptyState,
  Link,
  Progress,
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import { healthcheckCheckUpdatePermission } from '@vigil/plugin-healthcheck-common';
import { useMemo, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { CheckSummary, healthcheckApiRef } from '../../api/HealthcheckApi';
import { CheckFormDialog } from '../CheckForm';

/** Props of {@link ChecksTab}. @internal */
export interface ChecksTabProps {
  /** Changing it reloads the list (after a check was created, say). */
  reloadToken?: number;
}

/**
 * Every check, from Git and from the API, each with "Edit" (API checks, for
 * users who may change them) or "View" (GitOps checks are edited in Git).
 * @internal
 */
export function ChecksTab(props: ChecksTabProps) {
  const api = useApi(healthcheckApiRef);
  const { value, loading, error, retry } = useAsyncRetry(
    () => api.listChecks(),
    [api, props.reloadToken],
  );
  const [openCheckId, setOpenCheckId] = useState<string>();

  const columns = useMemo<TableColumn<CheckSummary>[]>(
    () => [
      {
        title: 'Check',
        field: 'id',
        highlight: true,
        render: check => (
          <>
            {check.title ?? check.id}
            {check.title && (
              <Box component="span" display="block" color="text.secondary">
                {check.id}
              </Box>
            )}
          </>
        ),
      },
      { title: 'Type', field: 'type' },
      { title: 'Target', field: 'target' },
      { title: 'Interval', field: 'interval' },
      {
        title: 'Systems',
        field: 'systems',
        render: check => check.systems.join(', '),
      },
      {
        title: 'Source',
        field: 'source.kind',
        render: check =>
          check.source.kind === 'gitops' ? (
            <span>
              Git: {check.source.entityRef}
              {check.source.location?.startsWith('url:') ? (
                <>
                  {' '}
                  (
                  <Link to={check.source.location.replace(/^url:/, '')}>
                    file
                  </Link>
                  )
                </>
              ) : null}
            </span>
          ) : (
            `API (by ${check.source.createdBy})`
          ),
      },
      {
        title: 'Paused',
        field: 'paused',
        render: check => (check.paused ? 'Paused' : ''),
      },
      {
        title: 'Actions',
        field: 'id',
        sorting: false,
        render: check => (
          <OpenCheckButton check={check} onOpen={setOpenCheckId} />
        ),
      },
    ],
    [],
  );

  return (
    <>
      {renderBody()}
      <CheckFormDialog
        open={openCheckId !== undefined}
        checkId={openCheckId}
        onClose={() => setOpenCheckId(undefined)}
        onSaved={() => retry()}
      />
    </>
  );

  function renderBody() {
    if (loading && !value) {
      return <Progress />;
    }
    if (error) {
      return (
        <>
          <ResponseErrorPanel error={error} title="Could not load the checks" />
          <Box mt={2}>
            <Button variant="contained" color="primary" onClick={retry}>
              Retry
            </Button>
          </Box>
        </>
      );
    }
    if (!value || value.length === 0) {
      return (
        <EmptyState
          missing="content"
          title="No health checks yet"
          description="Declare one as a HealthCheck entity (apiVersion vigil.dev/v1alpha1) next to your catalog-info.yaml, or create one with New check above."
        />
      );
    }
    return (
      <Table<CheckSummary>
        title={`${value.length} ${value.length === 1 ? 'check' : 'checks'}`}
        isLoading={loading}
        options={{
          paging: value.length > 50,
          pageSize: 50,
          search: true,
          padding: 'dense',
        }}
        columns={columns}
        data={value}
      />
    );
  }
}

/**
 * "Edit" for an API check the user may update (the policy decides per
 * check), "View" otherwise: GitOps checks are edited in Git.
 */
function OpenCheckButton(props: {
  check: CheckSummary;
  onOpen: (checkId: string) => void;
}) {
  const { check, onOpen } = props;
  const isApiCheck = check.source.kind === 'api';
  // Without a resource ref nothing is asked: a GitOps check is not edited here.
  const { allowed: editable } = usePermission({
    permission: healthcheckCheckUpdatePermission,
    resourceRef: isApiCheck ? check.id : undefined,
  });
  const name = check.title ?? check.id;
  return (
    <Button
      size="small"
      variant="outlined"
      onClick={() => onOpen(check.id)}
      aria-label={`${editable ? 'Edit' : 'View'} ${name}`}
    >
      {editable ? 'Edit' : 'View'}
    </Button>
  );
}
