import {
  Content,
  EmptyState,
  Header,
  Link,
  Page,
  Progress,
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import Button from '@material-ui/core/Button';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { CheckSummary, healthcheckApiRef } from '../../api/HealthcheckApi';

const columns: TableColumn<CheckSummary>[] = [
  {
    title: 'Check',
    field: 'id',
    highlight: true,
    render: check => check.title ?? check.id,
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
          {check.source.location ? (
            <>
              {' '}
              (<Link to={check.source.location.replace(/^url:/, '')}>file</Link>
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
    render: check => (check.paused ? 'paused' : ''),
  },
];

/** Every health check the backend knows, with where it was declared. */
export function ChecksPage() {
  const api = useApi(healthcheckApiRef);
  const { value, loading, error, retry } = useAsyncRetry(
    () => api.listChecks(),
    [api],
  );

  return (
    <Page themeId="tool">
      <Header
        title="Health checks"
        subtitle="Every check, per system and environment"
      />
      <Content>{renderBody()}</Content>
    </Page>
  );

  function renderBody() {
    if (loading) {
      return <Progress />;
    }
    if (error) {
      return (
        <>
          <ResponseErrorPanel error={error} title="Could not load the checks" />
          <Button variant="contained" color="primary" onClick={retry}>
            Retry
          </Button>
        </>
      );
    }
    if (!value || value.length === 0) {
      return (
        <EmptyState
          missing="content"
          title="No health checks yet"
          description="Declare one as a HealthCheck entity (apiVersion vigil.dev/v1alpha1) next to your catalog-info.yaml, or create one through the API."
        />
      );
    }
    return (
      <Table<CheckSummary>
        title={`${value.length} checks`}
        options={{ paging: false, search: true }}
        columns={columns}
        data={value}
      />
    );
  }
}
