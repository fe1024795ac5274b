import { CodeSnippet, EmptyState, Link } from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import Typography from '@material-ui/core/Typography';
import { rootRouteRef } from '../../routes';

/** A HealthCheck entity to put next to catalog-info.yaml, for a system. */
export function healthCheckSnippet(systemRef: string): string {
  const name = systemRef.replace(/^[^:]*:/, '').replace(/^[^/]*\//, '');
  return `# ${name}-health.yaml, next to catalog-info.yaml
# (and listed as a target of its catalog Location)
apiVersion: vigil.dev/v1alpha1
kind: HealthCheck
metadata:
  name: ${name}-health
  title: ${name} health endpoint
spec:
  type: http
  target: https://${name}.{{ environment.name }}.example.com/health
  interval: 30s
  conditions:
    - '[STATUS] == 200'
    - condition: '[RESPONSE_TIME] < 500'
      severity: degraded
  systems:
    - ${systemRef}
`;
}

/** The Health page's path, or undefined when the app did not mount it. */
function useHealthPagePath(): string | undefined {
  try {
    // useRouteRef calls the same hooks every time and throws only at the
    // end, when the route is not mounted; so catching it is safe.
    return useRouteRef(rootRouteRef)();
  } catch {
    return undefined;
  }
}

/** What the tab shows for a system without checks: how to add the first one. */
export function EmptyHealthState(props: { systemRef: string }) {
  const healthPage = useHealthPagePath();
  return (
    <EmptyState
      missing="content"
      title="No health checks for this system yet"
      description={
        <>
          Declare a check as code: a HealthCheck entity in a YAML file next to
          this system's catalog-info.yaml, naming the system in{' '}
          <code>spec.systems</code>. It runs in each of the system's
          environments.{' '}
          {healthPage ? (
            <>
              Or create one through the API on the{' '}
              <Link to={healthPage}>Health page</Link>.
            </>
          ) : (
            'Or create one through the API (POST /api/healthcheck/v1/checks).'
          )}
        </>
      }
      action={
        <div style={{ maxWidth: 640 }}>
          <Typography variant="subtitle2" gutterBottom>
            Example HealthCheck entity
          </Typography>
          <CodeSnippet
            language="yaml"
            text={healthCheckSnippet(props.systemRef)}
            showCopyCodeButton
          />
        </div>
      }
    />
  );
}
