import { Link } from '@backstage/core-components';
import { EntityRefLink } from '@backstage/plugin-catalog-react';
import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import TableCell from '@material-ui/core/TableCell';
import TableRow from '@material-ui/core/TableRow';
import {
  CheckDetails,
  DEFAULT_CHECK_INTERVAL,
  DEFAULT_CHECK_TIMEOUT,
} from '@vigil/plugin-healthcheck-common';
import { ReactNode } from 'react';
import { conditionText } from './formValues';
import { gitUrlOfLocation } from './gitUrlOfLocation';
import { Notice } from './Notice';

/**
 * A check, read-only: a GitOps check (edited in Git, with a link to its
 * file) or an API check the user may not change.
 * @internal
 */
export function CheckDetailsView(props: { check: CheckDetails }) {
  const { check } = props;
  const { spec, source } = check;
  const rows: Array<[string, ReactNode]> = [
    ['ID', check.id],
    ['Title', check.title ?? '—'],
    ['Type', spec.type],
    ['Target', <code>{spec.target ?? '(none: jobs ping it)'}</code>],
    ['Interval', spec.interval ?? `${DEFAULT_CHECK_INTERVAL} (default)`],
    [
      'Timeout',
      spec.timeout ??
        `${DEFAULT_CHECK_TIMEOUT}, or the interval if shorter (default)`,
    ],
    [
      'Conditions',
      spec.conditions?.length ? (
        <ul style={{ margin: 0, paddingLeft: 16 }}>
          {spec.conditions.map((condition, index) => (
            <li key={index}>
              <code>{conditionText(condition)}</code>
              {typeof condition !== 'string' && condition.severity
                ? ` (${condition.severity})`
                : null}
            </li>
          ))}
        </ul>
      ) : (
        '—'
      ),
    ],
    ['Systems', spec.systems.join(', ')],
    ['Components', spec.components?.join(', ') || '—'],
    ['Environments', spec.environments?.join(', ') ?? 'All of each system'],
    [
      'Thresholds',
      `failure ${spec.thresholds?.failure ?? 'default'}, success ${
        spec.thresholds?.success ?? 'default'
      }`,
    ],
    ['Paused', spec.paused ? 'Yes' : 'No'],
    ['Owner', spec.owner ?? '—'],
  ];
  if (spec.config && Object.keys(spec.config).length > 0) {
    rows.push([
      'Probe config',
      <pre style={{ margin: 0 }}>{JSON.stringify(spec.config, null, 2)}</pre>,
    ]);
  }
  const overrides = Object.entries(spec.environmentOverrides ?? {});
  if (overrides.length > 0) {
    rows.push([
      'Environment overrides',
      <ul style={{ margin: 0, paddingLeft: 16 }}>
        {overrides.map(([environment, override]) => (
          <li key={environment}>
            <strong>{environment}</strong>
            {override.target && (
              <div>
                Target <code>{override.target}</code>
              </div>
            )}
            {override.config && (
              <div>
                Probe config merged over the check’s:
                <pre style={{ margin: 0 }}>
                  {JSON.stringify(override.config, null, 2)}
                </pre>
              </div>
            )}
          </li>
        ))}
      </ul>,
    ]);
  }
  if (source.kind === 'api') {
    rows.push([
      'Source',
      `API: created by ${source.createdBy} at ${source.createdAt}, last changed by ${source.updatedBy} at ${source.updatedAt}`,
    ]);
  }

  return (
    <>
      {source.kind === 'gitops' ? (
        <GitOpsNotice entityRef={source.entityRef} location={source.location} />
      ) : (
        <Notice severity="info" title="You may view this check, not change it">
          Changing a check made through the API needs the permission
          healthcheck.check.update.
        </Notice>
      )}
      <Table size="small" aria-label="Check definition">
        <TableBody>
          {rows.map(([label, value]) => (
            <TableRow key={label}>
              <TableCell component="th" scope="row" style={{ width: 160 }}>
                {label}
              </TableCell>
              <TableCell>{value}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </>
  );
}

function GitOpsNotice(props: { entityRef: string; location?: string }) {
  const url = gitUrlOfLocation(props.location);
  return (
    <Notice severity="info" title="This check is managed in Git">
      It is declared as the HealthCheck entity{' '}
      <EntityRefLink entityRef={props.entityRef} defaultKind="healthcheck" />{' '}
      and is edited there: change its file, and the catalog picks the change up
      after review and merge. The form cannot change it.{' '}
      {url ? (
        <Link to={url}>Open the file in Git</Link>
      ) : (
        <>
          Its location is{' '}
          {props.location ? <code>{props.location}</code> : 'not known'}.
        </>
      )}
    </Notice>
  );
}
