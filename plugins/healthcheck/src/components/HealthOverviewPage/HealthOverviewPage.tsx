import {
  Content,
  ContentHeader,
  Header,
  HeaderTabs,
  Page,
} from '@backstage/core-components';
import { useReducer } from 'react';
import { useSearchParams } from 'react-router-dom';
import { NewCheckButton } from '../CheckForm';
import { ChecksTab } from './ChecksTab';
import { useOverviewState } from './overviewState';
import { SystemsOverview } from './SystemsOverview';

const bump = (token: number) => token + 1;

const TABS = [
  { id: 'systems', label: 'Systems' },
  { id: 'checks', label: 'Checks' },
];

/**
 * The health overview at /healthcheck: every system with its status, worst
 * first, with counts, filters, search and paging, kept live; a second tab
 * (`?tab=checks`) lists the checks, to edit or view each. "New check" for
 * users who may create checks.
 * @public
 */
export function HealthOverviewPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const tabIndex = searchParams.get('tab') === 'checks' ? 1 : 0;
  // Kept here, so the filters survive a visit to the Checks tab.
  const [state, dispatch] = useOverviewState();
  const [reloadToken, reload] = useReducer(bump, 0);

  return (
    <Page themeId="tool">
      <Header
        title="Health"
        subtitle="Every system's health, per environment, worst first"
      />
      <HeaderTabs
        tabs={TABS}
        selectedIndex={tabIndex}
        onChange={index => {
          const next = new URLSearchParams(searchParams);
          if (index === 1) {
            next.set('tab', 'checks');
          } else {
            next.delete('tab');
          }
          setSearchParams(next, { replace: true });
        }}
      />
      <Content>
        <ContentHeader title={tabIndex === 1 ? 'Checks' : 'Systems'}>
          <NewCheckButton onCreated={reload} />
        </ContentHeader>
        {tabIndex === 1 ? (
          <ChecksTab reloadToken={reloadToken} />
        ) : (
          <SystemsOverview
            state={state}
            dispatch={dispatch}
            reloadToken={reloadToken}
          />
        )}
      </Content>
    </Page>
  );
}

/**
 * The Systems tab of {@link HealthOverviewPage} alone, without the page and
 * its header: for the new frontend system's page layout (a sub-page).
 * @public
 */
export function HealthSystemsContent() {
  const [state, dispatch] = useOverviewState();
  const [reloadToken, reload] = useReducer(bump, 0);
  return (
    <Content>
      <ContentHeader title="Systems">
        <NewCheckButton onCreated={reload} />
      </ContentHeader>
      <SystemsOverview
        state={state}
        dispatch={dispatch}
        reloadToken={reloadToken}
      />
    </Content>
  );
}

/**
 * The Checks tab of {@link HealthOverviewPage} alone, without the page and
 * its header: every check, with Edit (API checks) or View (GitOps checks).
 * @public
 */
export function HealthChecksContent() {
  const [reloadToken, reload] = useReducer(bump, 0);
  return (
    <Content>
      <ContentHeader title="Checks">
        <NewCheckButton onCreated={reload} />
      </ContentHeader>
      <ChecksTab reloadToken={reloadToken} />
    </Content>
  );
}
