import { Link } from '@backstage/core-components';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import Button from '@material-ui/core/Button';
import Typography from '@material-ui/core/Typography';
import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { useCheckDetails } from './systemChecks';
import { urlOfLocation } from './format';
import { RelativeTime } from './RelativeTime';

function fileNameOf(url: string): string {
  try {
    const path = new URL(url).pathname.replace(/\/+$/, '');
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
  } catch {
    return url;
  }
}

function Who(props: { who: string }) {
  // Users and groups link to their catalog page; services show as text.
  return /^(user|group):/i.test(props.who) ? (
    <EntityRefLink entityRef={props.who} />
  ) : (
    <>{props.who}</>
  );
}

/** Where a check is declared: its file in Git, or the API and who changed it last. */
export function CheckSourceView(props: { details: CheckDetails }) {
  const { source } = props.details;
  if (source.kind === 'gitops') {
    const url = urlOfLocation(source.location);
    return (
      <Typography variant="body2" component="span">
        Git:{' '}
        {url ? (
          <Link to={url} title={url} aria-label={`File in Git: ${url}`}>
            {fileNameOf(url)}
          </Link>
        ) : (
          <EntityRefLink entityRef={source.entityRef} />
        )}
      </Typography>
    );
  }
  return (
    <Typography variant="body2" component="span">
      Managed through the API
      <Typography
        variant="caption"
        color="textSecondary"
        display="block"
        component="span"
      >
        last changed by <Who who={source.updatedBy} />{' '}
        <RelativeTime value={source.updatedAt} />
      </Typography>
    </Typography>
  );
}

/** The source of one check, from the system's checks the tab loaded. */
export function CheckSource(props: { checkId: string }) {
  const { state, retry } = useCheckDetails(props.checkId);
  switch (state.status) {
    case 'loaded':
      return <CheckSourceView details={state.value} />;
    case 'error':
      return (
        <Typography variant="body2" component="span" color="textSecondary">
          Source unavailable{' '}
          <Button size="small" onClick={retry}>
            Retry
          </Button>
        </Typography>
      );
    default:
      return (
        <Typography variant="body2" component="span" color="textSecondary">
          Loading source…
        </Typography>
      );
  }
}
