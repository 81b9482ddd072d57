import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { plural } from '@fleetdesk/contract';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { apiFetch } from '../../lib/api-client.ts';
import { toApiError } from '../../lib/api-error.ts';
import { useJob } from '../jobs/jobs-api.ts';

type Result = { fileName?: string; zones?: number; failedCount?: number; failed?: { domain: string; error: string }[] };

async function downloadZip(jobId: string) {
  const response = await apiFetch(`/api/zone-files/exports/${encodeURIComponent(jobId)}`, {
    accept: 'application/zip',
  });
  if (!response.ok) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    throw toApiError(response.status, body);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'zone-files.zip';
  const href = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 0);
}

/** /imports/zone-export/{jobId}: a selection's zone files being zipped, then the zip to download. */
export function ZoneExportPage() {
  const { id = '' } = useParams();
  const dialogs = useDialogs();
  const query = useJob(id);
  const [busy, setBusy] = useState(false);
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox onRefresh={() => void query.refetch()} />;
  const job = query.data;
  const result = (job.result ?? {}) as Result;
  const p = job.progress;
  const total = p?.total ?? 0;
  const done = p?.done ?? 0;
  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto">Zone files export (job #{job.jobNo})</h1>
        <Link to={`/jobs`}>Jobs</Link>
      </div>
      <Card body className="mb-3">
        {job.state === 'queued' || job.state === 'running' ? (
          <>
            <ProgressBar
              now={total ? Math.round((done / total) * 100) : 0}
              animated
              striped
              aria-label="Export progress"
            />
            <div className="small text-body-secondary mt-1">
              {total ? `${done} of ${total} zones read` : 'Waiting to start'} (through each account's request budget)
            </div>
          </>
        ) : job.state === 'completed' ? (
          <div className="d-flex flex-column gap-2">
            <div data-testid="zone-export-summary">
              {plural(result.zones ?? 0, 'zone file')} in {result.fileName}
              {result.failedCount ? `; ${result.failedCount} could not be read (listed in FAILED.txt)` : ''}
            </div>
            <div>
              <Button
                disabled={busy}
                onClick={() => {
                  setBusy(true);
                  downloadZip(job._id)
                    .catch((err: unknown) => void dialogs.apiError(err))
                    .finally(() => setBusy(false));
                }}
              >
                Download zip
              </Button>
            </div>
            {(result.failed ?? []).length > 0 && (
              <ul className="small mb-0">
                {result.failed!.map((f) => (
                  <li key={f.domain}>
                    {f.domain}: {f.error}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : (
          <Alert variant="danger" className="mb-0">
            The export {job.state}
            {job.error ? `: ${job.error}` : ''}
          </Alert>
        )}
      </Card>
    </section>
  );
}
