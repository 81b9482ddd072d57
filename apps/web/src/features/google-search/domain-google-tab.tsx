import { Fragment, lazy, Suspense, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import {
  GOOGLE_ANALYTICS_DAYS,
  googleSiteUrl,
  type GoogleAnalyticsRow,
  type GoogleDomainState,
  type GoogleInspection,
  type GooglePropertyKind,
} from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import {
  googleAccountsApi,
  googlePaths,
  permissionLabel,
  useAddProperty,
  useDeleteSitemap,
  useGoogleAnalytics,
  useGoogleSitemaps,
  useGoogleState,
  useInspect,
  useRemoveProperty,
  useSubmitSitemap,
  useVerifyProperty,
} from './google-search-api.ts';

// uPlot comes with the charts, when they are first drawn (decision 070).
const GoogleAnalyticsCharts = lazy(() => import('./google-analytics-charts.tsx'));

/** An inline form of one URL field with the server's field error under it. */
function UrlForm({
  label,
  button,
  placeholder,
  busy,
  error,
  onSubmit,
  testId,
}: {
  label: string;
  button: string;
  placeholder: string;
  busy: boolean;
  error: unknown;
  onSubmit: (url: string) => void;
  testId: string;
}) {
  const [url, setUrl] = useState('');
  const fieldError =
    error instanceof ApiError ? (error.fields?.url ?? error.message) : error ? errorMessage(error) : '';
  // Not a <form>: the tab sits inside the domain's own form, so Enter is handled here and the button is a button.
  const submit = () => onSubmit(url.trim());
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    submit();
  };
  return (
    <div className="mb-3" data-testid={testId}>
      <Form.Label htmlFor={`${testId}-url`} className="small mb-1">
        {label}
      </Form.Label>
      <div className="d-flex flex-wrap gap-2">
        <Form.Control
          id={`${testId}-url`}
          type="url"
          value={url}
          placeholder={placeholder}
          maxLength={2000}
          onChange={(e) => setUrl(e.target.value)}
          onKeyDown={onKey}
          isInvalid={Boolean(fieldError)}
          className="flex-grow-1 w-auto"
          style={{ minWidth: '14rem' }}
        />
        <Button variant="outline-primary" disabled={busy} onClick={submit}>
          {busy ? 'Working…' : button}
        </Button>
      </div>
      {fieldError && <div className="invalid-feedback d-block">{fieldError}</div>}
    </div>
  );
}

/** No property yet: pick the account and the kind, then add it. */
function AddProperty({ domainId, state }: { domainId: string; state: GoogleDomainState }) {
  const accounts = googleAccountsApi.useList({ page: 1 });
  const add = useAddProperty(domainId);
  const [accountId, setAccountId] = useState('');
  const [kind, setKind] = useState<GooglePropertyKind>('domain');
  const items = accounts.data?.items ?? [];
  if (accounts.isPending) return <Spinner animation="border" size="sm" />;
  if (!items.length)
    return (
      <p className="text-body-secondary" data-testid="google-no-accounts">
        No Google account yet. <Link to={googlePaths.create}>Create one</Link> with a service account key first.
      </p>
    );
  const chosen = accountId || items[0]!._id;
  const fields = add.error instanceof ApiError ? add.error.fields : undefined;
  return (
    <div data-testid="google-add-property">
      <p className="text-body-secondary small">
        This domain has no Search Console property in the console yet. A domain property covers every subdomain and is
        verified through a TXT record in its Cloudflare zone; a URL-prefix property is verified through a file written
        to its site.
      </p>
      <Form.Group className="mb-3" controlId="google-account">
        <Form.Label>Google account</Form.Label>
        <Form.Select
          value={chosen}
          onChange={(e) => setAccountId(e.target.value)}
          isInvalid={Boolean(fields?.accountId)}
        >
          {items.map((a) => (
            <option key={a._id} value={a._id}>
              {a.name} ({a.clientEmail})
            </option>
          ))}
        </Form.Select>
        {fields?.accountId && <div className="invalid-feedback d-block">{fields.accountId}</div>}
      </Form.Group>
      <Form.Group className="mb-3">
        <Form.Label as="div">Property</Form.Label>
        {(['domain', 'url'] as const).map((k) => (
          <Form.Check
            key={k}
            type="radio"
            id={`google-kind-${k}`}
            name="google-kind"
            checked={kind === k}
            onChange={() => setKind(k)}
            label={
              <>
                {k === 'domain' ? 'Domain property' : 'URL-prefix property'}{' '}
                <code>{googleSiteUrl(k, state.domainName)}</code>
              </>
            }
          />
        ))}
      </Form.Group>
      {add.error && !fields && <Alert variant="danger">{errorMessage(add.error)}</Alert>}
      <Button disabled={add.isPending} onClick={() => add.mutate({ accountId: chosen, kind })}>
        {add.isPending ? 'Adding…' : 'Add property'}
      </Button>
    </div>
  );
}

function Sitemaps({ domainId, domainName }: { domainId: string; domainName: string }) {
  const list = useGoogleSitemaps(domainId, true);
  const submit = useSubmitSitemap(domainId);
  const remove = useDeleteSitemap(domainId);
  const dialogs = useDialogs();
  const drop = async (path: string) => {
    if (!(await dialogs.confirm(`Remove the sitemap ${path} from Google Search Console?`))) return;
    remove.mutate(path, { onError: (err) => void dialogs.apiError(err) });
  };
  return (
    <section className="mb-4" data-testid="google-sitemaps">
      <h3 className="h6">Sitemaps</h3>
      <UrlForm
        label="Submit a sitemap"
        button="Submit"
        placeholder={`https://${domainName}/sitemap.xml`}
        busy={submit.isPending}
        error={submit.error}
        onSubmit={(url) => submit.mutate(url)}
        testId="google-sitemap-form"
      />
      {list.isPending ? (
        <Spinner animation="border" size="sm" />
      ) : list.isError ? (
        <Alert variant="danger">{errorMessage(list.error)}</Alert>
      ) : !list.data.length ? (
        <p className="text-body-secondary small">No sitemap submitted.</p>
      ) : (
        <div className="table-responsive">
          <Table size="sm" className="align-middle">
            <thead>
              <tr>
                <th>Sitemap</th>
                <th>Status</th>
                <th>Submitted</th>
                <th>Read</th>
                <th className="text-end">URLs</th>
                <th className="text-end">Errors</th>
                <th className="text-end">Warnings</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => {
                const errors = Number(s.errors ?? 0);
                const warnings = Number(s.warnings ?? 0);
                const urls = s.contents?.reduce((n, c) => n + Number(c.submitted ?? 0), 0);
                return (
                  <tr key={s.path}>
                    <td className="text-break" style={{ minWidth: '12rem' }}>
                      {s.path}
                    </td>
                    <td>
                      {s.isPending ? (
                        <Badge bg="secondary">Pending</Badge>
                      ) : errors ? (
                        <Badge bg="danger">Couldn’t read</Badge>
                      ) : (
                        <Badge bg="success">Success</Badge>
                      )}
                    </td>
                    <td className="text-nowrap">
                      <DateTime value={s.lastSubmitted} />
                    </td>
                    <td className="text-nowrap">
                      <DateTime value={s.lastDownloaded} />
                    </td>
                    <td className="text-end">{urls ?? '—'}</td>
                    <td className={`text-end ${errors ? 'text-danger fw-semibold' : ''}`}>{errors}</td>
                    <td className={`text-end ${warnings ? 'text-warning-emphasis fw-semibold' : ''}`}>{warnings}</td>
                    <td className="text-end">
                      <Button
                        size="sm"
                        variant="outline-danger"
                        disabled={remove.isPending}
                        onClick={() => void drop(s.path)}
                        aria-label={`Remove ${s.path}`}
                      >
                        Remove
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        </div>
      )}
    </section>
  );
}

function InspectionResult({ r }: { r: GoogleInspection }) {
  const i = r.indexStatusResult ?? {};
  const verdictBg = i.verdict === 'PASS' ? 'success' : i.verdict === 'FAIL' ? 'danger' : 'secondary';
  const rows: [string, ReactNode][] = [
    ['Verdict', <Badge bg={verdictBg}>{i.verdict ?? 'Unknown'}</Badge>],
    ['Coverage', i.coverageState ?? '—'],
    ['Last crawl', i.lastCrawlTime ? <DateTime value={i.lastCrawlTime} /> : 'Never'],
    ['Google canonical', i.googleCanonical ?? '—'],
    ['User canonical', i.userCanonical ?? '—'],
    ['Crawled as', i.crawledAs ?? '—'],
    ['Robots.txt', i.robotsTxtState ?? '—'],
    ['Page fetch', i.pageFetchState ?? '—'],
    ['Mobile usability', r.mobileUsabilityResult?.verdict ?? 'Not returned'],
  ];
  return (
    <div className="border rounded p-2 mb-3 small" data-testid="google-inspection">
      <dl className="row mb-1">
        {rows.map(([label, value]) => (
          <Fragment key={label}>
            <dt className="col-5 col-md-3 fw-semibold">{label}</dt>
            <dd className="col-7 col-md-9 mb-1 text-break">{value}</dd>
          </Fragment>
        ))}
      </dl>
      {r.mobileUsabilityResult?.issues?.map((x, n) => (
        <div key={n} className="text-danger">
          {x.issueType}: {x.message}
        </div>
      ))}
      {r.inspectionResultLink && (
        <a href={r.inspectionResultLink} target="_blank" rel="noreferrer noopener">
          Open in Search Console
        </a>
      )}
    </div>
  );
}

function Inspection({ domainId, domainName }: { domainId: string; domainName: string }) {
  const inspect = useInspect(domainId);
  return (
    <section className="mb-4">
      <h3 className="h6">URL inspection</h3>
      <UrlForm
        label="Inspect a page"
        button="Inspect"
        placeholder={`https://${domainName}/`}
        busy={inspect.isPending}
        error={inspect.error}
        onSubmit={(url) => inspect.mutate(url)}
        testId="google-inspect-form"
      />
      {inspect.data && <InspectionResult r={inspect.data} />}
    </section>
  );
}

function TopTable({ title, rows, testId }: { title: string; rows: GoogleAnalyticsRow[]; testId: string }) {
  return (
    <div className="col-12 col-lg-6">
      <h4 className="h6">{title}</h4>
      {!rows.length ? (
        <p className="text-body-secondary small">No data.</p>
      ) : (
        <div className="table-responsive">
          <Table size="sm" className="small" data-testid={testId}>
            <thead>
              <tr>
                <th>{title === 'Top queries' ? 'Query' : 'Page'}</th>
                <th className="text-end">Clicks</th>
                <th className="text-end">Impressions</th>
                <th className="text-end">CTR</th>
                <th className="text-end">Position</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key}>
                  {/* The key keeps a readable width: on a phone the table scrolls sideways instead of squeezing it. */}
                  <td className="text-break" style={{ minWidth: '11rem' }}>
                    {r.key}
                  </td>
                  <td className="text-end text-nowrap">{r.clicks.toLocaleString('en-US')}</td>
                  <td className="text-end text-nowrap">{r.impressions.toLocaleString('en-US')}</td>
                  <td className="text-end text-nowrap">{(r.ctr * 100).toFixed(1)} %</td>
                  <td className="text-end text-nowrap">{r.position.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
    </div>
  );
}

function Analytics({ domainId }: { domainId: string }) {
  const q = useGoogleAnalytics(domainId, true);
  return (
    <section className="mb-4" data-testid="google-analytics">
      <h3 className="h6">
        Search performance, last {GOOGLE_ANALYTICS_DAYS} days
        {q.data && (
          <span className="fw-normal text-body-secondary small ms-2">
            {q.data.startDate} to {q.data.endDate} (UTC)
          </span>
        )}
      </h3>
      {q.isPending ? (
        <LoadingSpinner />
      ) : q.isError ? (
        <Alert variant="danger">{errorMessage(q.error)}</Alert>
      ) : !q.data.days.length ? (
        <p className="text-body-secondary small" data-testid="google-analytics-empty">
          Google has no search data for this property in these days yet.
        </p>
      ) : (
        <>
          <Suspense fallback={<LoadingSpinner />}>
            <GoogleAnalyticsCharts analytics={q.data} />
          </Suspense>
          <div className="row g-3 mt-1">
            <TopTable title="Top queries" rows={q.data.queries} testId="google-top-queries" />
            <TopTable title="Top pages" rows={q.data.pages} testId="google-top-pages" />
          </div>
        </>
      )}
    </section>
  );
}

/** The domain's Google tab: its Search Console property, one-click verification, sitemaps, inspection, analytics. */
export default function DomainGoogleTab({ domainId }: { domainId: string }) {
  const q = useGoogleState(domainId);
  const verify = useVerifyProperty(domainId);
  const remove = useRemoveProperty(domainId);
  const dialogs = useDialogs();
  if (q.isPending) return <LoadingSpinner />;
  if (q.isError)
    return (
      <Alert variant="danger" data-testid="google-error">
        {errorMessage(q.error)}
      </Alert>
    );
  const state = q.data;
  const p = state.property;
  if (!p) return <AddProperty domainId={domainId} state={state} />;
  const blocked =
    p.kind === 'domain' && !state.hasZone
      ? 'The domain has no Cloudflare zone for the TXT record'
      : p.kind === 'url' && !state.hasServer
        ? 'The domain has no server to write the file to'
        : undefined;
  const drop = async () => {
    if (!(await dialogs.confirm(`Remove ${p.siteUrl} from the Search Console of ${p.clientEmail}?`))) return;
    remove.mutate(undefined, { onError: (err) => void dialogs.apiError(err) });
  };
  return (
    <div data-testid="google-tab">
      <StaticField label="Property" value={<code data-testid="google-site-url">{p.siteUrl}</code>} />
      <StaticField
        label="Google account"
        value={
          <Link to={googlePaths.edit(p.accountId)}>
            {p.accountName} ({p.clientEmail})
          </Link>
        }
      />
      <StaticField
        label="Verification"
        value={
          <Badge
            bg={p.verified ? 'success' : 'warning'}
            text={p.verified ? undefined : 'dark'}
            data-testid="google-verified"
          >
            {p.verified ? 'Verified' : 'Not verified'}
          </Badge>
        }
      />
      <StaticField label="Permission" value={permissionLabel(p.permissionLevel)} />
      {verify.data && (
        <Alert variant="success" data-testid="google-verify-success">
          Verified: placed {verify.data.placed}. Owners: {verify.data.owners.join(', ')}.
        </Alert>
      )}
      {verify.error && <Alert variant="danger">{errorMessage(verify.error)}</Alert>}
      <div className="d-flex flex-wrap gap-2 mb-4">
        {!p.verified && (
          <Button
            disabled={verify.isPending || Boolean(blocked)}
            title={blocked}
            onClick={() => verify.mutate(undefined)}
          >
            {verify.isPending
              ? 'Verifying…'
              : p.kind === 'domain'
                ? 'Verify through a DNS TXT record'
                : 'Verify through an HTML file'}
          </Button>
        )}
        <Button variant="outline-danger" disabled={remove.isPending} onClick={() => void drop()}>
          Remove property
        </Button>
      </div>
      {p.verified ? (
        <>
          <Analytics domainId={domainId} />
          <Sitemaps domainId={domainId} domainName={state.domainName} />
          <Inspection domainId={domainId} domainName={state.domainName} />
        </>
      ) : (
        <p className="text-body-secondary small">
          Sitemaps, URL inspection and search performance show once the property is verified.
        </p>
      )}
    </div>
  );
}
