import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import Badge from 'react-bootstrap/Badge';
import Form from 'react-bootstrap/Form';
import Tab from 'react-bootstrap/Tab';
import Table from 'react-bootstrap/Table';
import {
  ALERT_EVENT_LABELS,
  ALERT_SEVERITY_LABELS,
  CHANNEL_KIND_LABELS,
  type Alert,
  type AlertEvent,
} from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Pager } from '../../components/pager.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { useAlerts, useDeliveryLog, useDemoInbox } from './alerts-api.ts';

const SEVERITY_BG = { info: 'info', warning: 'warning', critical: 'danger' } as const;

/** Where an alert leads: its domain, server, proxy, launch, or the plan, import or batch its job worked for. */
const SUBJECT_PATHS: Record<string, string> = {
  domain: '/domains',
  server: '/servers',
  proxy: '/proxies',
  launch: '/launches',
  plan: '/fleet',
  import: '/imports',
  batch: '/launches/batches',
};

function Subject({ a }: { a: Alert }) {
  const name = a.subjectName ?? '—';
  // A job of its own has no page: the Jobs screen lists it.
  if (a.subjectKind === 'job') return <Link to="/jobs">{name}</Link>;
  const base = SUBJECT_PATHS[a.subjectKind];
  if (!a.subjectId || !base) return <>{name}</>;
  return <Link to={`${base}/${a.subjectId}`}>{name}</Link>;
}

function Problems() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? 1) || 1;
  const state = params.get('state') ?? '';
  const q = useAlerts(page, state);
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  return (
    <>
      <Form.Select
        size="sm"
        className="mb-3"
        style={{ maxWidth: '16rem' }}
        aria-label="Which problems"
        value={state}
        onChange={(e) => set('state', e.currentTarget.value)}
      >
        <option value="">Open and recent</option>
        <option value="open">Open only</option>
        <option value="recent">Resolved and events (last 7 days)</option>
      </Form.Select>
      {q.isPending ? (
        <LoadingSpinner />
      ) : q.isError ? (
        <ErrorBox message={errorMessage(q.error)} onRefresh={() => void q.refetch()} />
      ) : !q.data.items.length ? (
        <p className="text-body-secondary">No problems: everything the console watches is fine.</p>
      ) : (
        <>
          {/* Cards on a phone (fd-list-table): nothing is cut at the right edge (issue 47). */}
          <Table responsive hover size="sm" className="align-middle fd-list-table fd-min-md-48" aria-label="Problems">
            <thead>
              <tr>
                <th>№</th>
                <th>State</th>
                <th>Severity</th>
                <th>Problem</th>
                <th>About</th>
                <th>Since</th>
                <th>Resolved</th>
                <th>Sent</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((a) => (
                <tr key={a._id} data-testid="alert-row">
                  <td data-label="№">{a.alertNo}</td>
                  <td data-label="State">
                    <StatusBadge
                      status={a.state === 'open' ? 'failed' : a.state === 'resolved' ? 'ok' : 'unknown'}
                      label={a.state}
                    />
                  </td>
                  <td data-label="Severity">
                    <Badge bg={SEVERITY_BG[a.severity]} text={a.severity === 'critical' ? undefined : 'dark'}>
                      {ALERT_SEVERITY_LABELS[a.severity]}
                    </Badge>
                  </td>
                  <td className="fd-cell-main text-break">
                    <div>{a.title}</div>
                    <div className="small text-body-secondary fd-pre-line">
                      {ALERT_EVENT_LABELS[a.event as AlertEvent]}
                      {a.detail ? `: ${a.detail}` : ''}
                    </div>
                  </td>
                  <td data-label="About" className="text-break">
                    <Subject a={a} />
                  </td>
                  <td data-label="Since" className="text-nowrap">
                    <DateTime value={a.openedAt} />
                  </td>
                  <td data-label="Resolved" className="text-nowrap">
                    <DateTime value={a.resolvedAt} />
                  </td>
                  <td data-label="Sent">{a.deliveries}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager page={page} itemsCount={q.data.itemsCount} onPageChange={(p) => set('page', String(p))} />
        </>
      )}
    </>
  );
}

function DeliveryLog() {
  const [page, setPage] = useState(1);
  const q = useDeliveryLog(page);
  if (q.isPending) return <LoadingSpinner />;
  if (q.isError) return <ErrorBox message={errorMessage(q.error)} onRefresh={() => void q.refetch()} />;
  if (!q.data.items.length) return <p className="text-body-secondary">Nothing sent yet.</p>;
  return (
    <>
      <Table responsive size="sm" className="align-middle fd-list-table fd-min-md-44" aria-label="Delivery log">
        <thead>
          <tr>
            <th>When</th>
            <th>Channel</th>
            <th>Event</th>
            <th>Outcome</th>
            <th>Provider’s answer</th>
          </tr>
        </thead>
        <tbody>
          {q.data.items.map((l) => (
            <tr key={l.id} data-testid="delivery-row">
              <td data-label="When" className="text-nowrap">
                <DateTime value={l.at} />
              </td>
              <td className="fd-cell-main text-break">
                {l.channelName}
                <div className="small text-body-secondary">{CHANNEL_KIND_LABELS[l.channelKind]}</div>
              </td>
              <td data-label="Event" className="fd-min-md-14 text-break">
                {l.event}
              </td>
              <td data-label="Outcome">
                <StatusBadge
                  status={
                    l.outcome === 'sent' || l.outcome === 'test' ? 'ok' : l.outcome === 'failed' ? 'failed' : 'queued'
                  }
                  label={l.outcome}
                />
              </td>
              <td data-label="Provider’s answer" className="small fd-min-md-14" style={{ overflowWrap: 'anywhere' }}>
                {l.answer ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pager page={page} itemsCount={q.data.itemsCount} onPageChange={setPage} />
    </>
  );
}

function DemoInbox({ mails }: { mails: NonNullable<ReturnType<typeof useDemoInbox>['data']> }) {
  if (!mails.length) return <p className="text-body-secondary">The demo’s mail catcher has received nothing yet.</p>;
  return (
    <div className="d-grid gap-2">
      {mails.map((m) => (
        <details key={m.id} className="border rounded p-2" data-testid="inbox-mail">
          <summary>
            <strong>{m.subject}</strong>{' '}
            <span className="small text-body-secondary">
              to {m.to}, <DateTime value={m.at} />
            </span>
          </summary>
          <pre className="mt-2 mb-0 small" style={{ whiteSpace: 'pre-wrap' }}>
            {m.text}
          </pre>
        </details>
      ))}
    </div>
  );
}

/** /alerts: open and recent problems, what was sent about them, and in the demo the local inbox. */
export function AlertsPage() {
  const inbox = useDemoInbox();
  return (
    <>
      <PageHeader title="Alerts">
        <LinkButton to="/alert-rules" variant="outline-primary">
          Rules
        </LinkButton>
        <LinkButton to="/notification-channels" variant="outline-primary">
          Channels
        </LinkButton>
      </PageHeader>
      <QueryTabs
        defaultActiveKey="problems"
        resetParams={['page', 'state']}
        mountOnEnter
        id="alerts-tabs"
        className="mb-3"
      >
        <Tab eventKey="problems" title="Problems">
          <Problems />
        </Tab>
        <Tab eventKey="deliveries" title="Delivery log">
          <DeliveryLog />
        </Tab>
        {inbox.data && (
          <Tab eventKey="inbox" title={`Demo inbox (${inbox.data.length})`}>
            <DemoInbox mails={inbox.data} />
          </Tab>
        )}
      </QueryTabs>
    </>
  );
}
