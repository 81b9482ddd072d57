import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { LAUNCH_BATCH_MAX, LAUNCH_CSV_COLUMNS } from '@fleetdesk/contract';
import { errorMessage } from '../../lib/api-error.ts';
import { launchBatchPath, useCreateLaunchBatch } from './launches-api.ts';
import { useLaunchSettings } from './launch-settings.tsx';

const CSV_MAX_BYTES = 2_000_000;

/** /launches/batches/new: many names (pasted or a CSV with per-row overrides) with one set of settings; planned first. */
export function LaunchBatchNewPage() {
  const navigate = useNavigate();
  const create = useCreateLaunchBatch();
  const [names, setNames] = useState('');
  const [csv, setCsv] = useState<{ name: string; text: string } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const { settings, view } = useLaunchSettings();
  const [confirmCostly, setConfirmCostly] = useState(false);
  const fields = create.error?.fields ?? {};

  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.currentTarget.files?.[0];
    setFileError(null);
    if (!f) return setCsv(null);
    if (f.size > CSV_MAX_BYTES) return setFileError('The CSV is larger than 2 MB');
    void f.text().then((text) => setCsv({ name: f.name, text }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { settings, confirmCostly, ...(csv ? { csv: csv.text } : { names }) },
      { onSuccess: (b) => void navigate(launchBatchPath(b._id)) },
    );
  };

  return (
    <section>
      <h1 className="h3 mb-1">Launch many sites</h1>
      <p className="text-body-secondary">
        Up to {LAUNCH_BATCH_MAX} names with the same settings. Planning shows each name&apos;s plan and what blocks it;
        nothing changes until you run the batch. Each name is a launch of its own, paced by the providers&apos; budgets.
      </p>
      <Form onSubmit={submit} noValidate aria-label="Launch many sites">
        <Card body className="mb-3">
          <Form.Group className="mb-3" controlId="batch-names">
            <Form.Label>Names, one per line</Form.Label>
            <Form.Control
              as="textarea"
              rows={6}
              value={names}
              onChange={(e) => setNames(e.currentTarget.value)}
              disabled={!!csv}
              isInvalid={!!fields.names}
              className="font-monospace"
            />
            <Form.Control.Feedback type="invalid" className="fd-pre-line">
              {fields.names}
            </Form.Control.Feedback>
          </Form.Group>
          <Form.Group controlId="batch-csv">
            <Form.Label>Or a CSV</Form.Label>
            <Form.Control type="file" accept=".csv,text/csv" onChange={pick} isInvalid={!!(fields.csv || fileError)} />
            <Form.Control.Feedback type="invalid" className="fd-pre-line" data-testid="csv-error">
              {fields.csv ?? fileError}
            </Form.Control.Feedback>
            <Form.Text>
              Its first line names the columns: {LAUNCH_CSV_COLUMNS.join(', ')}. A row&apos;s server (IP address), brand
              (name), cloud (e-mail), copyFrom (a domain) and sslMode replace the settings below for that name.
            </Form.Text>
          </Form.Group>
        </Card>
        {view(fields)}
        <Form.Check
          id="batch-confirm-costly"
          className="mb-3"
          label="Confirm the registrations now (they cost money); otherwise each launch stops before its registration and asks"
          checked={confirmCostly}
          onChange={(e) => setConfirmCostly(e.currentTarget.checked)}
        />
        {create.error && !fields.names && !fields.csv && <Alert variant="danger">{errorMessage(create.error)}</Alert>}
        <div className="d-flex gap-2 mb-3">
          <Button type="submit" disabled={create.isPending || (!csv && !names.trim())}>
            {create.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
            Plan
          </Button>
          <Button variant="outline-secondary" onClick={() => void navigate(-1)}>
            Back
          </Button>
        </div>
      </Form>
    </section>
  );
}
