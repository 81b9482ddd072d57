import { useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Tab from 'react-bootstrap/Tab';
import Table from 'react-bootstrap/Table';
import type { UseQueryResult } from '@tanstack/react-query';
import { YANDEX_VERIFICATION_TYPES, type YandexVerificationType } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { VerifiedBadge } from './hosts-pages.tsx';
import { VerificationInstructions } from './verification-instructions.tsx';
import { YandexCode, YandexCodes, yandexLabel } from './yandex-labels.tsx';
import {
  isYandexError,
  useAddHost,
  useAddSitemap,
  useDeleteSitemap,
  useHost,
  useImportantUrls,
  useRecrawl,
  useRecrawlQueue,
  useRecrawlQuota,
  useSitemaps,
  useSummary,
  useUserSitemaps,
  useVerification,
  useVerifyHost,
  webmasterPaths,
} from './yandex-webmaster-api.ts';

/** The message of a failed action, or the spec's fallback when the server gave none. */
const failure = (error: unknown, fallback: string) =>
  error instanceof ApiError && error.status !== 0 && error.message ? error.message : fallback;

function Loaded<T>({ q, children }: { q: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (q.isPending) return <LoadingSpinner />;
  if (q.isError) return <ErrorBox detail={errorMessage(q.error)} onRefresh={() => void q.refetch()} />;
  return <>{children(q.data)}</>;
}

const show = (v: unknown) => (v === undefined || v === null || v === '' ? '—' : String(v));
const when = (v?: string) => {
  if (!v) return '—';
  const d = new Date(v.replace(',', '.'));
  return Number.isNaN(d.getTime()) ? v : d.toLocaleString();
};

/** The host's name in its id, e.g. https:example.com:443 → example.com. */
const hostNameOf = (hostId: string) => hostId.split(':')[1] ?? hostId;

/** The host id in the URL, e.g. https:example.com:443 → https://example.com. */
const hostUrlOf = (hostId: string) => {
  const [scheme, name] = hostId.split(':');
  return `${scheme === 'http' ? 'http' : 'https'}://${name ?? hostId}`;
};

function HostNotFound({ id, hostId }: { id: string; hostId: string }) {
  const add = useAddHost(id);
  const dialogs = useDialogs();
  const toasts = useToasts();
  // Register Host posts the host url with https (spec §8).
  const url = `https://${hostId.split(':')[1] ?? hostId}`;
  return (
    <Alert variant="warning" className="d-flex flex-wrap align-items-center gap-3">
      <span className="me-auto">Host is not found on this account</span>
      <Button
        disabled={add.isPending}
        onClick={() =>
          void add.mutateAsync(url).then(
            () => toasts.success('Host registered successfully'),
            (err) => void dialogs.apiError(err),
          )
        }
      >
        Register Host
      </Button>
    </Alert>
  );
}

export function HostPage() {
  const { id = '', hostId = '' } = useParams();
  const host = useHost(id, hostId);
  const verified = Boolean(host.data?.verified);
  const title = host.data?.unicode_host_url ?? hostUrlOf(hostId);
  return (
    <>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto text-break">Host {title}</h1>
        <LinkButton to={webmasterPaths.hostDelete(id, hostId)} variant="outline-danger">
          Delete Host
        </LinkButton>
        <LinkButton to={webmasterPaths.hosts(id)} variant="outline-secondary">
          Back to hosts
        </LinkButton>
      </div>
      {host.isPending ? (
        <LoadingSpinner />
      ) : host.isError && isYandexError(host.error, 'HOST_NOT_FOUND') ? (
        <HostNotFound id={id} hostId={hostId} />
      ) : host.isError ? (
        <ErrorBox detail={errorMessage(host.error)} onRefresh={() => void host.refetch()} />
      ) : (
        <QueryTabs defaultActiveKey="general" id="host-tabs" className="mb-3 small" mountOnEnter>
          <Tab tabClassName="px-2" eventKey="general" title="General">
            <StaticField label="Host Id" value={<code>{host.data.host_id}</code>} />
            <StaticField label="Host Url" value={host.data.unicode_host_url ?? host.data.ascii_host_url ?? '—'} />
            <StaticField label="Verified" value={<VerifiedBadge verified={host.data.verified} />} />
            {host.data.host_data_status && (
              <StaticField label="Data Status" value={<YandexCode code={host.data.host_data_status} />} />
            )}
            {host.data.main_mirror && (
              <StaticField
                label="Main Mirror"
                value={host.data.main_mirror.unicode_host_url ?? host.data.main_mirror.host_id}
              />
            )}
            {!verified && (
              <Alert variant="info">
                The other tabs open once the host is verified: see the <strong>Verification</strong> tab.
              </Alert>
            )}
          </Tab>
          <Tab tabClassName="px-2" eventKey="summary" title="Summary" disabled={!verified}>
            <SummaryTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="important-urls" title="Important URLs" disabled={!verified}>
            <ImportantUrlsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="sitemaps" title="Sitemaps" disabled={!verified}>
            <SitemapsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="user-added-sitemaps" title="User Added Sitemaps" disabled={!verified}>
            <UserSitemapsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="recrawl" title="Recrawl" disabled={!verified}>
            <RecrawlTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="verification" title="Verification">
            <VerificationTab id={id} hostId={hostId} onVerified={() => void host.refetch()} />
          </Tab>
        </QueryTabs>
      )}
    </>
  );
}

type TabProps = { id: string; hostId: string; enabled: boolean };

function SummaryTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useSummary(id, hostId, enabled)}>
      {(s) => (
        <>
          <StaticField label="SQI" value={show(s.sqi)} />
          <StaticField label="Searchable Pages" value={show(s.searchable_pages_count)} />
          <StaticField label="Excluded Pages" value={show(s.excluded_pages_count)} />
          <StaticField
            label="Site Problems"
            value={
              Object.keys(s.site_problems ?? {}).length ? (
                <span data-testid="site-problems">
                  {Object.entries(s.site_problems ?? {}).map(([k, n], i) => (
                    <span key={k}>
                      {i > 0 && ', '}
                      <YandexCode code={k} />: {n}
                    </span>
                  ))}
                </span>
              ) : (
                'None'
              )
            }
          />
        </>
      )}
    </Loaded>
  );
}

function ImportantUrlsTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useImportantUrls(id, hostId, enabled)}>
      {(urls) => (
        // Below 768 px each URL is a card labelled by the headers (fd-record-table).
        <Table responsive size="sm" hover className="fd-record-table" data-testid="important-urls">
          <thead>
            <tr>
              <th>URL</th>
              <th>Updated</th>
              <th>Changes</th>
              <th>Indexing</th>
              <th>HTTP</th>
              <th>Title</th>
              <th>Searchable</th>
              <th>Excluded Status</th>
            </tr>
          </thead>
          <tbody>
            {urls.length === 0 && (
              <tr>
                <td colSpan={8} className="text-body-secondary">
                  No important URLs
                </td>
              </tr>
            )}
            {urls.map((u) => (
              <tr key={u.url}>
                <td data-label="URL" className="fd-url-cell">
                  {u.url}
                </td>
                <td data-label="Updated">{when(u.update_date)}</td>
                <td data-label="Changes">
                  <YandexCodes codes={u.change_indicators} />
                </td>
                <td data-label="Indexing">
                  <YandexCode code={u.indexing_status?.status} />
                </td>
                <td data-label="HTTP">{show(u.indexing_status?.http_code)}</td>
                <td data-label="Title">{show(u.search_status?.title)}</td>
                <td data-label="Searchable">
                  {u.search_status?.searchable === undefined ? '—' : u.search_status.searchable ? 'Yes' : 'No'}
                </td>
                <td data-label="Excluded Status">
                  <YandexCode code={u.search_status?.excluded_url_status} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Loaded>
  );
}

function SitemapsTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useSitemaps(id, hostId, enabled)}>
      {(list) => (
        <Table responsive size="sm" hover className="fd-record-table">
          <thead>
            <tr>
              <th>Sitemap URL</th>
              <th>Type</th>
              <th>Last Access</th>
              <th>URLs</th>
              <th>Errors</th>
              <th>Children</th>
              <th>Sources</th>
            </tr>
          </thead>
          <tbody>
            {list.length === 0 && (
              <tr>
                <td colSpan={7} className="text-body-secondary">
                  No sitemaps found
                </td>
              </tr>
            )}
            {list.map((s) => (
              <tr key={s.sitemap_id}>
                <td data-label="Sitemap URL" className="fd-url-cell">
                  {s.sitemap_url}
                </td>
                <td data-label="Type">
                  <YandexCode code={s.sitemap_type} />
                </td>
                <td data-label="Last Access">{when(s.last_access_date)}</td>
                <td data-label="URLs">{show(s.urls_count)}</td>
                <td data-label="Errors">{show(s.errors_count)}</td>
                <td data-label="Children">{show(s.children_count)}</td>
                <td data-label="Sources">
                  <YandexCodes codes={s.sources} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Loaded>
  );
}

function UrlForm({
  label,
  button,
  pending,
  onSubmit,
}: {
  label: string;
  button: string;
  pending: boolean;
  onSubmit: (url: string) => Promise<boolean>;
}) {
  const [url, setUrl] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!url.trim()) return;
    if (await onSubmit(url.trim())) setUrl('');
  };
  return (
    <Form noValidate onSubmit={(e) => void submit(e)} className="mb-3" style={{ maxWidth: 720 }}>
      <Form.Label htmlFor={`url-${button}`}>{label}</Form.Label>
      <InputGroup>
        <Form.Control
          id={`url-${button}`}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://"
          maxLength={2000}
        />
        <Button type="submit" disabled={pending || !url.trim()}>
          {button}
        </Button>
      </InputGroup>
    </Form>
  );
}

function UserSitemapsTab({ id, hostId, enabled }: TabProps) {
  const q = useUserSitemaps(id, hostId, enabled);
  const add = useAddSitemap(id, hostId);
  const del = useDeleteSitemap(id, hostId);
  const dialogs = useDialogs();
  const toasts = useToasts();
  return (
    <>
      <UrlForm
        label="Sitemap URL"
        button="Add Sitemap"
        pending={add.isPending}
        onSubmit={async (url) => {
          try {
            await add.mutateAsync(url);
            toasts.success('Sitemap added successfully');
            return true;
          } catch (err) {
            await dialogs.error(failure(err, 'Failed to add sitemap'));
            return false;
          }
        }}
      />
      <Loaded q={q}>
        {(data) => (
          <Table responsive size="sm" hover className="fd-record-table">
            <thead>
              <tr>
                <th>Sitemap URL</th>
                <th>Sitemap Id</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.sitemaps.length === 0 && (
                <tr>
                  <td colSpan={4} className="text-body-secondary">
                    No sitemaps added
                  </td>
                </tr>
              )}
              {data.sitemaps.map((s) => (
                <tr key={s.sitemap_id}>
                  <td data-label="Sitemap URL" className="fd-url-cell">
                    {s.sitemap_url}
                  </td>
                  <td data-label="Sitemap Id">
                    <code>{s.sitemap_id}</code>
                  </td>
                  <td data-label="Added">{when(s.added_date)}</td>
                  <td data-label="" className="text-end">
                    <Button
                      size="sm"
                      variant="outline-danger"
                      disabled={del.isPending}
                      onClick={() =>
                        void dialogs
                          .confirm(`Delete the sitemap ${s.sitemap_url}?`)
                          .then((yes) => (yes ? del.mutateAsync(s.sitemap_id) : undefined))
                          .then(
                            (r) => r !== undefined && toasts.success('Sitemap deleted successfully'),
                            (err) => void dialogs.error(failure(err, 'Failed to delete sitemap')),
                          )
                      }
                    >
                      Delete
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Loaded>
    </>
  );
}

function RecrawlTab({ id, hostId, enabled }: TabProps) {
  const quota = useRecrawlQuota(id, hostId, enabled);
  const queue = useRecrawlQueue(id, hostId, enabled);
  const recrawl = useRecrawl(id, hostId);
  const dialogs = useDialogs();
  const toasts = useToasts();
  return (
    <>
      <Loaded q={quota}>
        {(q) => (
          <div className="d-flex gap-4 mb-3" data-testid="recrawl-quota">
            <StaticField label="Daily Quota" value={q.daily_quota} />
            <StaticField label="Quota Remainder" value={q.quota_remainder} />
          </div>
        )}
      </Loaded>
      <UrlForm
        label="URL to recrawl"
        button="Recrawl"
        pending={recrawl.isPending}
        onSubmit={async (url) => {
          try {
            const r = await recrawl.mutateAsync(url);
            toasts.success(
              r.backlogged
                ? "Today's quota is spent: the URL waits and is sent on a later day"
                : 'URL sent for recrawl',
            );
            return true;
          } catch (err) {
            await dialogs.error(failure(err, 'Failed to recrawl task'));
            return false;
          }
        }}
      />
      <Loaded q={queue}>
        {(data) => (
          <>
            {data.backlog.length > 0 && (
              <Alert variant="secondary">
                <div className="fw-semibold mb-1">Waiting for a later day&apos;s quota ({data.backlog.length})</div>
                <ul className="mb-0 small">
                  {data.backlog.map((b) => (
                    <li key={b.url} className="text-break">
                      {b.url}
                    </li>
                  ))}
                </ul>
              </Alert>
            )}
            <Table responsive size="sm" hover className="fd-record-table">
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Task Id</th>
                  <th>Added</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {data.tasks.length === 0 && (
                  <tr>
                    <td colSpan={4} className="text-body-secondary">
                      No recrawl tasks
                    </td>
                  </tr>
                )}
                {data.tasks.map((t) => (
                  <tr key={t.task_id}>
                    <td data-label="URL" className="fd-url-cell">
                      {t.url}
                    </td>
                    <td data-label="Task Id">
                      <code>{t.task_id}</code>
                    </td>
                    <td data-label="Added">{when(t.added_time)}</td>
                    <td data-label="State">
                      <YandexCode code={t.state} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </>
        )}
      </Loaded>
    </>
  );
}

export function VerificationTab({ id, hostId, onVerified }: { id: string; hostId: string; onVerified?: () => void }) {
  const q = useVerification(id, hostId);
  const verify = useVerifyHost(id, hostId);
  const dialogs = useDialogs();
  const [seenVerified, setSeenVerified] = useState(false);
  // Set once a check starts here: its success is then announced, not just shown as a state.
  const [checking, setChecking] = useState(false);
  if (q.data?.verification_state === 'VERIFIED' && !seenVerified) {
    setSeenVerified(true);
    onVerified?.();
  }
  return (
    <Loaded q={q}>
      {(v) => {
        const applicable = (v.applicable_verifiers ?? []).filter((x): x is YandexVerificationType =>
          (YANDEX_VERIFICATION_TYPES as readonly string[]).includes(x),
        );
        const canVerify = v.verification_state !== 'VERIFIED' && v.verification_state !== 'IN_PROGRESS';
        const start = (type: YandexVerificationType) => {
          setChecking(true);
          void verify.mutateAsync(type).then(
            () => q.refetch(),
            (err) => {
              setChecking(false);
              return dialogs.error(failure(err, 'Failed to start host verification'));
            },
          );
        };
        return (
          <>
            {checking && v.verification_state === 'VERIFIED' && (
              <Alert variant="success" data-testid="verification-success">
                The host is verified: its Summary, Important URLs, Sitemaps and Recrawl tabs are open now.
              </Alert>
            )}
            <StaticField label="State" value={<YandexCode code={v.verification_state} testId="verification-state" />} />
            <StaticField label="Type" value={<YandexCode code={v.verification_type} />} />
            <StaticField label="Uin" value={<code>{show(v.verification_uin)}</code>} />
            <StaticField label="Last Time" value={when(v.latest_verification_time)} />
            <StaticField
              label="Fail Info"
              value={
                v.fail_info ? (
                  <>
                    <YandexCode code={v.fail_info.reason} />: {show(v.fail_info.message)}
                  </>
                ) : (
                  '—'
                )
              }
            />
            <StaticField label="Applicable Verifiers" value={<YandexCodes codes={v.applicable_verifiers} />} />
            {v.verification_state === 'IN_PROGRESS' && (
              <Alert variant="info">Yandex is checking the host; this page follows the check.</Alert>
            )}
            {canVerify && applicable.length > 0 && v.verification_uin && (
              <>
                <p className="mb-2">
                  Publish one of these, then verify the host with the same method. Yandex checks it within a minute or
                  two.
                </p>
                <VerificationInstructions
                  uin={v.verification_uin}
                  hostName={hostNameOf(hostId)}
                  methods={applicable}
                  action={(method) => (
                    <Button
                      size="sm"
                      disabled={verify.isPending}
                      aria-label={`Verify Host with ${yandexLabel(method)}`}
                      onClick={() => start(method)}
                    >
                      Verify Host
                    </Button>
                  )}
                />
              </>
            )}
          </>
        );
      }}
    </Loaded>
  );
}
