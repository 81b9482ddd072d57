import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import {
  IMPORT_SOURCES,
  IMPORT_SOURCE_LABELS,
  type Cloud,
  type DomainRegistrator,
  type ImportSource,
  type Server,
} from '@fleetdesk/contract';
import { PickerField } from '../../components/picker-field.tsx';
import { CloudPicker, cloudLabel } from '../../components/pickers/cloud-picker.tsx';
import {
  DomainRegistratorPicker,
  domainRegistratorLabel,
} from '../../components/pickers/domain-registrator-picker.tsx';
import { ServerPicker, serverLabel } from '../../components/pickers/server-picker.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { importPath, useCreateImport } from './imports-api.ts';

const HELP: Record<ImportSource, string> = {
  cloudflare:
    "Every zone of the cloud's Cloudflare account (all pages) becomes a domain linked to the cloud and its zone; a domain that exists already is linked when it has no zone, and reported otherwise.",
  directadmin:
    "Every domain of the server's DirectAdmin user becomes a domain on that server, as far as the server's limit allows; the overflow is reported.",
  ispmanager:
    "Every site of the server's ISPmanager panel becomes a domain on that server, as far as the server's limit allows; the overflow is reported.",
  registrar:
    'Every domain of the registrar account becomes a domain tied to the registrator, with its expiration date.',
};

/** /imports/new: what to import from; planning shows what would be created, linked or skipped before anything is. */
export function ImportNewPage() {
  const navigate = useNavigate();
  const create = useCreateImport();
  const [source, setSource] = useState<ImportSource>('cloudflare');
  const [cloud, setCloud] = useState<Cloud | null>(null);
  const [server, setServer] = useState<Server | null>(null);
  const [registrator, setRegistrator] = useState<DomainRegistrator | null>(null);
  const sourceId = source === 'cloudflare' ? cloud?._id : source === 'registrar' ? registrator?._id : server?._id;
  const fields = create.error?.fields ?? {};

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ source, sourceId }, { onSuccess: (p) => void navigate(importPath(p._id)) });
  };

  return (
    <section>
      <h1 className="h3 mb-1">New import</h1>
      <p className="text-body-secondary">
        Planning reads the whole source and shows, name by name, what will be created, linked or skipped and why.
        Nothing is written until you run the plan; running it twice creates nothing twice.
      </p>
      <Form onSubmit={submit} noValidate>
        <Card body className="mb-3">
          <Form.Group className="mb-3" controlId="import-source">
            <Form.Label>Import from</Form.Label>
            <Form.Select value={source} onChange={(e) => setSource(e.currentTarget.value as ImportSource)}>
              {IMPORT_SOURCES.map((s) => (
                <option key={s} value={s}>
                  {IMPORT_SOURCE_LABELS[s]}
                </option>
              ))}
            </Form.Select>
            <Form.Text>{HELP[source]}</Form.Text>
          </Form.Group>
          {source === 'cloudflare' && (
            <PickerField<Cloud>
              label="Cloud"
              value={cloud}
              onChange={setCloud}
              getLabel={cloudLabel}
              picker={CloudPicker}
              error={fields.sourceId}
              required
            />
          )}
          {(source === 'directadmin' || source === 'ispmanager') && (
            <PickerField<Server>
              label="Server"
              value={server}
              onChange={setServer}
              getLabel={serverLabel}
              picker={ServerPicker}
              error={fields.sourceId}
              required
            />
          )}
          {source === 'registrar' && (
            <PickerField<DomainRegistrator>
              label="Domain registrator"
              value={registrator}
              onChange={setRegistrator}
              getLabel={domainRegistratorLabel}
              picker={DomainRegistratorPicker}
              error={fields.sourceId}
              required
            />
          )}
        </Card>
        {create.error && !fields.sourceId && <Alert variant="danger">{errorMessage(create.error)}</Alert>}
        <div className="d-flex gap-2">
          <Button type="submit" disabled={create.isPending || !sourceId}>
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
