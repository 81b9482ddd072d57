import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { PARSER_DISABLED, type Domain, type Job, type ParsingProgress } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { api } from '../../lib/api-client.ts';
import { FALLBACK_MESSAGES, withFallback, type ApiError } from '../../lib/api-error.ts';
import { formatBytes, formatNumber } from '../../lib/format.ts';
import { DateTime } from '../../components/date-time.tsx';
import { JobButtons } from '../jobs/job-card.tsx';
import { JOB_POLL_MS, useJob } from '../jobs/jobs-api.ts';
import { domainPaths } from './domains-api.ts';

const ACTIVE = new Set(['queued', 'running']);
const STATE: Record<ParsingProgress['state'], { label: string; bg: string }> = {
  queued: { label: 'Queued', bg: 'secondary' },
  running: { label: 'Running', bg: 'primary' },
  completed: { label: 'Completed', bg: 'success' },
  failed: { label: 'Failed', bg: 'danger' },
  cancelled: { label: 'Cancelled', bg: 'warning' },
};

/** GET /api/domains/{id}, polled while its parsing runs (spec 2 §7: progress comes from the domain). */
function useParsingDomain(id: string, startedJobId: string | null) {
  return useQuery({
    queryKey: ['domains', 'parsing', id],
    queryFn: ({ signal }) => api.get<Domain>(`/api/domains/${encodeURIComponent(id)}`, undefined, signal),
    refetchInterval: (q) => {
      const p = q.state.data?.parsingProgress as ParsingProgress | null | undefined;
      const waiting = startedJobId !== null && p?.jobId !== startedJobId;
      return waiting || (p && ACTIVE.has(p.state)) ? JOB_POLL_MS : false;
    },
  });
}

function useStartParsing(id: string) {
  const queryClient = useQueryClient();
  return useMutation<Job, ApiError, { confirmParserDisabled?: boolean }>({
    mutationFn: (body) => api.post<Job>(`/api/domains/${encodeURIComponent(id)}/parsing`, body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['domains', 'parsing', id] }),
  });
}

/** Pages and requisites done out of all known so far; the total grows while pages are found. */
function percentOf(p: ParsingProgress): number {
  if (p.state === 'completed') return 100;
  const done = p.pagesDone + p.assets;
  const total = done + p.pending;
  return total ? Math.min(99, Math.round((done / total) * 100)) : 0;
}

function Settings({ domain }: { domain: Domain }) {
  return (
    <Table size="sm" className="mb-3" style={{ maxWidth: 640 }} aria-label="Parser settings">
      <tbody>
        <tr>
          <th scope="row" style={{ width: 200 }}>
            Parser URL
          </th>
          <td className="text-break">{domain.parserURL ?? <span className="text-danger">Not set</span>}</td>
        </tr>
        <tr>
          <th scope="row">Parser enabled</th>
          <td>{domain.parserEnabled ? 'Yes' : 'No'}</td>
        </tr>
        <tr>
          <th scope="row">Single page</th>
          <td>{domain.isSinglePage ? 'Yes (only this page and its requisites)' : 'No (the whole site)'}</td>
        </tr>
        <tr>
          <th scope="row">Parser proxy region</th>
          <td>{domain.parserProxyRegion?.name ?? 'None (fetches directly)'}</td>
        </tr>
        <tr>
          <th scope="row">Server</th>
          <td>
            {domain.server ? (
              [domain.server.email, domain.server.IPAddress].filter(Boolean).join(' / ')
            ) : (
              <span className="text-danger">Not set</span>
            )}
          </td>
        </tr>
      </tbody>
    </Table>
  );
}

function Counts({ p }: { p: ParsingProgress }) {
  const items: [string, string][] = [
    ['Pages found', formatNumber(p.pagesFound)],
    ['Pages done', formatNumber(p.pagesDone)],
    ['Assets', formatNumber(p.assets)],
    ['Bytes', formatBytes(p.bytes)],
    ['Errors', formatNumber(p.errors)],
  ];
  if (p.skipped) items.push(['Kept from before', formatNumber(p.skipped)]);
  return (
    <dl className="row row-cols-2 row-cols-md-6 g-2 mb-0 mt-2" aria-label="Parsing counts">
      {items.map(([label, value]) => (
        <div key={label} className="col" data-count={label}>
          <dt className="small text-body-secondary fw-normal">{label}</dt>
          <dd className="fs-5 mb-0">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Failures({ failed, errors }: { failed: NonNullable<ParsingProgress['failed']>; errors: number }) {
  if (!failed.length) return null;
  return (
    <Alert variant="warning" className="mt-3 mb-0">
      <div className="mb-2">
        {errors > failed.length
          ? `${errors} URLs failed; the first ${failed.length}:`
          : `${failed.length} ${failed.length === 1 ? 'URL' : 'URLs'} failed:`}
      </div>
      <div style={{ maxHeight: 320, overflow: 'auto' }}>
        <Table size="sm" className="mb-0 small" aria-label="Failed URLs">
          <thead>
            <tr>
              <th>URL</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {failed.map((f) => (
              <tr key={f.url}>
                <td className="text-break">
                  <code>{f.url}</code>
                </td>
                <td>{f.reason}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
    </Alert>
  );
}

function ProgressCard({ domain, job }: { domain: Domain; job: Job | undefined }) {
  const p = domain.parsingProgress as ParsingProgress | null;
  if (!p) return <p className="text-body-secondary">This domain has not been parsed yet.</p>;
  const active = ACTIVE.has(p.state);
  const pct = percentOf(p);
  const filesLink = `${domainPaths.action(domain._id, 'edit-content-files')}`;
  return (
    <Card className="mb-3" data-testid="parsing-progress" data-state={p.state}>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <span className="me-auto">
          {p.jobNo ? <Link to={`/jobs?domainId=${domain._id}`}>Job #{p.jobNo}</Link> : 'Parsing'} ·{' '}
          <span className="text-break">{p.startUrl}</span>
        </span>
        {/* Some URLs failed: the job's words ("Completed with failures"), never a plain green "Completed". */}
        {p.state === 'completed' && p.errors > 0 ? (
          <Badge bg="warning" text="dark" data-testid="parsing-state">
            Completed with failures
          </Badge>
        ) : (
          <Badge bg={STATE[p.state].bg} text={p.state === 'cancelled' ? 'dark' : undefined} data-testid="parsing-state">
            {STATE[p.state].label}
          </Badge>
        )}
      </Card.Header>
      <Card.Body>
        <ProgressBar
          now={pct}
          animated={active}
          striped={active}
          variant={
            p.state === 'failed'
              ? 'danger'
              : p.state === 'completed'
                ? p.errors > 0
                  ? 'warning'
                  : 'success'
                : undefined
          }
          label={`${pct}%`}
          aria-label="Parsing progress"
          style={{ height: '1.1rem' }}
        />
        {p.message && <div className="small text-body-secondary mt-1">{p.message}</div>}
        <Counts p={p} />
        <div className="small text-body-secondary mt-2">
          Started <DateTime value={domain.parsingStartDate} />
          {domain.parsingEndDate && !active && (
            <>
              {' '}
              · ended <DateTime value={domain.parsingEndDate} />
            </>
          )}
          {p.route && <> · fetched {p.route}</>}
        </div>
        {!!p.events?.length && (
          <ul className="small mt-2 mb-0" aria-label="Proxy changes">
            {p.events.slice(-5).map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
        )}
        {p.state === 'failed' && p.error && (
          <Alert variant="danger" className="mt-3 mb-0">
            {p.error}
          </Alert>
        )}
        {(p.state === 'completed' || p.state === 'failed') && <Failures failed={p.failed ?? []} errors={p.errors} />}
        <div className="d-flex flex-wrap gap-2 mt-3">
          {!active && (
            <>
              <LinkButton to={filesLink} variant="outline-primary" size="sm">
                Open in file manager
              </LinkButton>
              {p.state === 'completed' && (
                <LinkButton
                  to={`${filesLink}?file=${encodeURIComponent('/index.html')}`}
                  variant="outline-secondary"
                  size="sm"
                >
                  Open index.html
                </LinkButton>
              )}
            </>
          )}
          {job && job._id === p.jobId && <JobButtons job={job} size="sm" />}
        </div>
      </Card.Body>
    </Card>
  );
}

/** /domains/{id}/parsing: start parsing (confirming past parser_disabled) and watch its progress. */
export function DomainParsingPage() {
  const { id = '' } = useParams();
  const dialogs = useDialogs();
  const [startedJobId, setStartedJobId] = useState<string | null>(null);
  const domain = useParsingDomain(id, startedJobId);
  const start = useStartParsing(id);
  useForbiddenDialog(domain.error);
  const progress = domain.data?.parsingProgress as ParsingProgress | null | undefined;
  const job = useJob(progress?.jobId ?? startedJobId ?? undefined);

  if (domain.isPending) return <LoadingSpinner />;
  if (domain.isError) return <ErrorBox onRefresh={() => void domain.refetch()} />;
  const d = domain.data;
  const running =
    (progress && ACTIVE.has(progress.state)) || (job.data && ['queued', 'running'].includes(job.data.state));

  const run = (confirmParserDisabled?: boolean) =>
    start.mutate(confirmParserDisabled ? { confirmParserDisabled } : {}, {
      onSuccess: (j) => setStartedJobId(j._id),
      onError: async (e) => {
        if (e.code === PARSER_DISABLED) {
          const ok = await dialogs.confirm(
            'The parser is disabled for this domain. Parse it anyway? Files the site has are written over.',
            { title: 'Parser disabled', confirmLabel: 'Parse anyway' },
          );
          if (ok) run(true);
          return;
        }
        void dialogs.apiError(withFallback(e, FALLBACK_MESSAGES.startParsing));
      },
    });

  return (
    <section style={{ maxWidth: 980 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto">Domain Parsing: {d.domainNameUnicode}</h1>
        <LinkButton to={domainPaths.edit(d._id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      <p className="text-body-secondary">
        Mirrors the parser URL into the domain directory on its server: the page (or the whole site) with its CSS,
        scripts, images and fonts, links made relative so the copy works on this domain. Files already there with the
        same names are replaced.
      </p>
      <Settings domain={d} />
      <div className="d-flex flex-wrap gap-2 mb-3">
        <Button variant="primary" onClick={() => run()} disabled={start.isPending || !!running}>
          {start.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Start Parsing
        </Button>
        <LinkButton to={domainPaths.tab(d._id, 'general')} variant="outline-secondary">
          Edit parser settings
        </LinkButton>
      </div>
      {startedJobId && progress?.jobId !== startedJobId ? (
        <Alert variant="secondary">Parsing is queued; it starts in a moment.</Alert>
      ) : (
        <ProgressCard domain={d} job={job.data} />
      )}
    </section>
  );
}
