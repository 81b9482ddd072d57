import Alert from 'react-bootstrap/Alert';
import Tab from 'react-bootstrap/Tab';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { api } from '../../lib/api-client.ts';
import { useQuery } from '@tanstack/react-query';
import type { Me } from '@fleetdesk/contract';
import { useToken } from '../../lib/token.ts';
import { SessionsPanel } from './sessions-panel.tsx';
import { TokensPanel } from './tokens-panel.tsx';
import { TwoFactorPanel } from './two-factor-panel.tsx';

/** The signed-in person's own page: two-factor sign-in, API tokens, sessions. */
export function ProfilePage() {
  // The header's who-am-I query (same key): a setup-only session sees the two-factor tab alone.
  const token = useToken();
  const me = useQuery({
    queryKey: ['auth', 'me', token],
    queryFn: ({ signal }) => api.get<Me>('/auth/me', undefined, signal),
    staleTime: Infinity,
  });
  const setupOnly = me.data?.twoFactorSetupRequired === true;
  return (
    <>
      <PageHeader title="Profile" />
      {me.data && (
        <p className="text-body-secondary">
          Signed in as <strong>{me.data.user.username}</strong>
          {me.data.user.name && me.data.user.name !== me.data.user.username ? ` (${me.data.user.name})` : ''}.
        </p>
      )}
      {setupOnly ? (
        <>
          <Alert variant="warning">Your role requires two-factor sign-in. Set it up to use the console.</Alert>
          <TwoFactorPanel />
        </>
      ) : (
        <QueryTabs defaultActiveKey="two-factor" mountOnEnter>
          <Tab eventKey="two-factor" title="Two-factor sign-in">
            <TwoFactorPanel />
          </Tab>
          <Tab eventKey="tokens" title="API tokens">
            <TokensPanel />
          </Tab>
          <Tab eventKey="sessions" title="Sessions">
            <SessionsPanel />
          </Tab>
        </QueryTabs>
      )}
    </>
  );
}
