import { useState, type ReactNode } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Form from 'react-bootstrap/Form';
import type { Domain, DomainListItem, DomainReplacementInput, Job } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { PickerField } from '../../components/picker-field.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { DomainPicker, domainLabel } from '../../components/pickers/domain-picker.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { domainPaths, domainsApi } from '../domains/domains-api.ts';
import { JobCard } from './job-card.tsx';
import { copySummary } from './job-summary.ts';
import { useJob, useJobsList, useStartDomainJob, type DomainJobAction, type DomainJobBody } from './jobs-api.ts';

const KIND: Record<DomainJobAction, string> = {
  'generate-sitemap': 'domains.generate-sitemap',
  'copy-content-files': 'domains.copy-content-files',
  replacement: 'domains.replacement',
};

/** The latest job of this kind on this domain (polled while it runs), and a way to start a new one. */
function useLatestJob(domainId: string, action: DomainJobAction) {
  const latest = useJobsList({ domainId, kind: KIND[action], page: 1 });
  const [startedId, setStartedId] = useState<string | null>(null);
  const id = startedId ?? latest.data?.items[0]?._id;
  const job = useJob(id);
  return { job: job.data, loading: latest.isPending, setStartedId };
}

function ActionLayout({
  title,
  domain,
  intro,
  children,
}: {
  title: string;
  domain: Domain;
  intro: ReactNode;
  children: ReactNode;
}) {
  return (
    <section style={{ maxWidth: 820 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto">
          {title}: {domain.domainNameUnicode}
        </h1>
        <LinkButton to={domainPaths.edit(domain._id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      <p className="text-body-secondary">{intro}</p>
      {children}
    </section>
  );
}

/** Loads the domain of the route, with the usual loading and error states. */
function WithDomain({ children }: { children: (domain: Domain) => ReactNode }) {
  const { id = '' } = useParams();
  const domain = domainsApi.useItem(id);
  useForbiddenDialog(domain.error);
  if (domain.isPending) return <LoadingSpinner />;
  if (domain.isError) return <ErrorBox onRefresh={() => void domain.refetch()} />;
  return <>{children(domain.data)}</>;
}

function useStarter(domainId: string, action: DomainJobAction, show: (jobId: string) => void) {
  const dialogs = useDialogs();
  const start = useStartDomainJob(action);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const run = (body?: DomainJobBody) => {
    setFieldErrors({});
    start.mutate(
      { domainId, body },
      {
        onSuccess: (job: Job) => show(job._id),
        onError: (e) => {
          // The job already running is named in the 409's data: show it (its card links to it) rather than a box.
          const running = e.code === 'job_running' ? (e.data as { jobId?: unknown } | undefined)?.jobId : undefined;
          if (typeof running === 'string') show(running);
          else if (e.fields && Object.keys(e.fields).length) setFieldErrors(e.fields);
          else void dialogs.apiError(e);
        },
      },
    );
  };
  return { run, pending: start.isPending, fieldErrors };
}

/**
 * The start-and-watch block of every domain job page: the target domain (when the job has one), the page's own
 * fields, the Start button (off while a job of this kind runs) and the latest job's card, polled while it runs.
 */
function JobRunner({
  domainId,
  action,
  label,
  needsTarget,
  body,
  children,
  result,
  after,
}: {
  domainId: string;
  action: DomainJobAction;
  label: string;
  needsTarget?: boolean;
  /** Sent with the target (when there is one). */
  body?: Partial<DomainReplacementInput>;
  children?: ReactNode;
  result?: (job: Job) => ReactNode;
  after?: (job: Job) => ReactNode;
}) {
  const { job, loading, setStartedId } = useLatestJob(domainId, action);
  const starter = useStarter(domainId, action, setStartedId);
  const [target, setTarget] = useState<DomainListItem | null>(null);
  const [tried, setTried] = useState(false);
  const running = job && (job.state === 'queued' || job.state === 'running');
  const targetError = (tried && !target ? 'Choose a target domain' : undefined) ?? starter.fieldErrors.targetDomainId;
  const handleStart = () => {
    if (!needsTarget) return starter.run(body);
    setTried(true);
    if (target) starter.run({ targetDomainId: target._id, ...body });
  };
  return (
    <>
      {needsTarget && (
        <PickerField<DomainListItem>
          label="Target domain"
          value={target}
          onChange={setTarget}
          getLabel={domainLabel}
          picker={DomainPicker}
          placeholder="Select a domain"
          error={targetError}
          required
        />
      )}
      {children}
      <div className="mb-3">
        <SubmitButton type="button" pending={starter.pending} disabled={!!running} onClick={handleStart}>
          {label}
        </SubmitButton>
      </div>
      {loading ? (
        <LoadingSpinner />
      ) : (
        job && (
          <>
            <JobCard job={job} result={result?.(job)} />
            {after?.(job)}
          </>
        )
      )}
    </>
  );
}

function SitemapPage({ domain }: { domain: Domain }) {
  return (
    <ActionLayout
      title="Generate Sitemap"
      domain={domain}
      intro={`Walks the domain directory's HTML files and writes sitemap.xml with https://${domain.domainNameUnicode}/… URLs and their last-modified times (numbered sitemaps and an index above 50,000 URLs or 50 MB).`}
    >
      <JobRunner
        domainId={domain._id}
        action="generate-sitemap"
        label="Generate Sitemap"
        result={(job) => {
          const result = job.result as { files?: string[]; urlCount?: number } | null | undefined;
          return (
            <>
              <div>
                <strong>{result?.urlCount ?? 0}</strong> URLs written to:
              </div>
              <ul className="mb-0" aria-label="Sitemap files">
                {(result?.files ?? []).map((f) => (
                  <li key={f}>
                    <code>{f}</code>
                  </li>
                ))}
              </ul>
            </>
          );
        }}
      />
    </ActionLayout>
  );
}

function CopyFailures({ job }: { job: Job }) {
  const failed = ((job.result as { failed?: { path: string; error: string }[] } | null)?.failed ?? []).slice(0, 200);
  if (!failed.length) return null;
  return (
    <Alert variant="warning" className="mt-2 mb-0">
      <div className="mb-1">These files could not be copied:</div>
      <ul className="mb-0 small" aria-label="Failed files">
        {failed.map((f) => (
          <li key={f.path}>
            <code>{f.path}</code>: {f.error}
          </li>
        ))}
      </ul>
    </Alert>
  );
}

function CopyPage({ domain }: { domain: Domain }) {
  return (
    <ActionLayout
      title="Copy Content Files"
      domain={domain}
      intro="Copies the whole domain directory to the target domain's directory, on the same server or another, file by file. A file that fails is retried, then reported by name; the copy goes on with the rest."
    >
      <JobRunner
        domainId={domain._id}
        action="copy-content-files"
        label="Copy Content Files"
        needsTarget
        result={(job) => (
          <>
            <div>
              Copied to <strong>{String((job.payload as { targetDomainName?: string }).targetDomainName ?? '')}</strong>
            </div>
            <div data-testid="copy-summary">{copySummary((job.result ?? {}) as Record<string, unknown>)}</div>
          </>
        )}
        after={(job) => <CopyFailures job={job} />}
      />
    </ActionLayout>
  );
}

function ReplacementPage({ domain }: { domain: Domain }) {
  const [flags, setFlags] = useState({
    createCloudFlareZone: true,
    copyCloudFlareFirewallRules: true,
    copyFiles: true,
  });
  const check = (key: keyof typeof flags, label: string) => (
    <Form.Check
      id={`replacement-${key}`}
      type="checkbox"
      label={label}
      checked={flags[key]}
      onChange={(e) => setFlags((f) => ({ ...f, [key]: e.target.checked }))}
    />
  );
  return (
    <ActionLayout
      title="Domain Replacement"
      domain={domain}
      intro="Moves everything from this domain to its replacement, step by step. A failed step stops the job and says why; Resume continues from that step, without redoing the steps already done."
    >
      <JobRunner domainId={domain._id} action="replacement" label="Start Replacement" needsTarget body={flags}>
        <Form.Group className="mb-3">
          {check('createCloudFlareZone', "Create the target's zone in this domain's cloud (or link it if it exists)")}
          {check('copyCloudFlareFirewallRules', "Copy this domain's WAF rule set to the target and push it")}
          {check('copyFiles', 'Copy the files')}
        </Form.Group>
      </JobRunner>
    </ActionLayout>
  );
}

export const DomainGenerateSitemapPage = () => <WithDomain>{(d) => <SitemapPage domain={d} />}</WithDomain>;
export const DomainCopyContentFilesPage = () => <WithDomain>{(d) => <CopyPage domain={d} />}</WithDomain>;
export const DomainReplacementPage = () => <WithDomain>{(d) => <ReplacementPage domain={d} />}</WithDomain>;
