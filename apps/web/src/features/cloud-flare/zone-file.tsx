import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import {
  PROXIABLE_DNS_TYPES,
  ZONE_FILE_MAX_BYTES,
  ZONE_FILE_TEXT,
  type DnsChangesInput,
  type DnsChangesResult,
  type Domain,
  type ZoneFileDiffRow,
  type ZoneFilePreview,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { api, apiFetch } from '../../lib/api-client.ts';
import { toApiError, type ApiError } from '../../lib/api-error.ts';
import { saveTextFile } from '../../lib/csv-export.ts';
import { cloudFlareKeys } from './cloud-flare-api.ts';

const zoneFilePath = (id: string, rest = '') => `/api/domains/${encodeURIComponent(id)}/cloud-flare/zone-file${rest}`;

/** Downloads the zone as Cloudflare serves it, as a BIND file. */
export async function exportZoneFile(domain: Pick<Domain, '_id' | 'domainName'>) {
  const response = await apiFetch(zoneFilePath(domain._id), { accept: 'text/plain' });
  if (!response.ok) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    throw toApiError(response.status, body);
  }
  saveTextFile(await response.text(), `${domain.domainName}.txt`, 'text/plain;charset=utf-8');
}

const KIND_LABEL: Record<ZoneFileDiffRow['kind'], string> = {
  added: 'Added',
  changed: 'Changed',
  removed: 'Removed',
  unchanged: 'Unchanged',
};
const KIND_VARIANT: Record<ZoneFileDiffRow['kind'], string> = {
  added: 'success',
  changed: 'warning',
  removed: 'danger',
  unchanged: 'secondary',
};

const show = (r: {
  type: string;
  name: string;
  content: string;
  ttl: number;
  priority?: number;
  proxied: boolean | null;
}) =>
  `${r.type} ${r.name} ${r.priority !== undefined ? `${r.priority} ` : ''}${r.content} · TTL ${r.ttl === 1 ? 'Auto' : r.ttl}${
    r.proxied === null || !PROXIABLE_DNS_TYPES.includes(r.type) ? '' : r.proxied ? ' · proxied' : ' · DNS only'
  }`;

/** The chosen rows' changes, merged into one DNS editor change (one atomic batch, split by the API if large). */
export function changesOf(preview: ZoneFilePreview, chosen: Set<string>): DnsChangesInput {
  const out = { deletes: [] as { id: string }[], patches: [] as never[], posts: [] as never[] };
  for (const key of chosen) {
    const c = preview.changes[key];
    if (!c) continue;
    out.deletes.push(...(c.deletes ?? []));
    out.patches.push(...((c.patches ?? []) as never[]));
    out.posts.push(...((c.posts ?? []) as never[]));
  }
  return out;
}

/** "Import zone file": upload, see the difference, choose, apply. */
export function ImportZoneFileModal({
  domain,
  show: open,
  onHide,
}: {
  domain: Domain;
  show: boolean;
  onHide: () => void;
}) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ZoneFilePreview | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [showUnchanged, setShowUnchanged] = useState(false);

  const read = useMutation<ZoneFilePreview, ApiError, File>({
    mutationFn: (f) =>
      api.postRaw<ZoneFilePreview>(zoneFilePath(domain._id, '/preview'), { contentType: 'text/plain', data: f }),
    onSuccess: (p) => {
      setPreview(p);
      // Added and changed are chosen; removing records the file does not have is the operator's explicit choice.
      setChosen(new Set(p.rows.filter((r) => r.kind === 'added' || r.kind === 'changed').map((r) => r.key)));
    },
  });
  const apply = useMutation<DnsChangesResult, ApiError, DnsChangesInput>({
    mutationFn: (changes) =>
      api.post<DnsChangesResult>(zoneFilePath(domain._id, '/apply'), { fileName: file?.name ?? '', changes }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: cloudFlareKeys.dns(domain._id) }),
  });

  const reset = () => {
    setFile(null);
    setPreview(null);
    setChosen(new Set());
    read.reset();
    apply.reset();
  };
  const close = () => {
    if (apply.isPending) return;
    reset();
    onHide();
  };

  const rows = useMemo(
    () => (preview?.rows ?? []).filter((r) => showUnchanged || r.kind !== 'unchanged'),
    [preview, showUnchanged],
  );
  const toggle = (key: string) =>
    setChosen((c) => {
      const next = new Set(c);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const handleRead = () => {
    if (!file) return;
    if (file.size > ZONE_FILE_MAX_BYTES) {
      void dialogs.error(ZONE_FILE_TEXT.tooLarge);
      return;
    }
    read.mutate(file);
  };
  const handleApply = async () => {
    if (!preview || !chosen.size) return;
    try {
      const r = await apply.mutateAsync(changesOf(preview, chosen));
      toasts.success(r.message);
      reset();
      onHide();
    } catch (error) {
      void dialogs.apiError(error);
    }
  };

  return (
    <Modal show={open} onHide={close} size="xl" scrollable centered>
      <Modal.Header closeButton={!apply.isPending}>
        <Modal.Title as="h2" className="h4">
          Import zone file
        </Modal.Title>
      </Modal.Header>
      <Modal.Body data-testid="zone-import">
        <Form.Group className="mb-3">
          <Form.Label htmlFor="zone-file-input">BIND zone file for {domain.domainNameUnicode}</Form.Label>
          <div className="d-flex flex-wrap gap-2">
            <Form.Control
              id="zone-file-input"
              type="file"
              accept=".txt,.zone,.db,text/plain"
              onChange={(e) => {
                const f = (e.target as HTMLInputElement).files?.[0] ?? null;
                setFile(f);
                setPreview(null);
              }}
              style={{ maxWidth: 420 }}
            />
            <Button onClick={handleRead} disabled={!file || read.isPending}>
              {read.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
              Show the difference
            </Button>
          </div>
          <Form.Text>
            $ORIGIN, $TTL, relative names, @, multi-line records and comments are read; SOA and NS at the apex are
            Cloudflare's and are only reported. Nothing changes until you apply.
          </Form.Text>
        </Form.Group>
        {read.isError && <Alert variant="danger">{read.error.message}</Alert>}
        {preview && (
          <>
            <p className="fw-semibold" data-testid="zone-import-counts">
              {preview.counts.added} added, {preview.counts.changed} changed, {preview.counts.removed} removed,{' '}
              {preview.counts.unchanged} unchanged
              {preview.counts.problems > 0 &&
                `, ${preview.counts.problems} ${preview.counts.problems === 1 ? 'line' : 'lines'} cannot be imported`}
            </p>
            {preview.problems.length > 0 && (
              <Alert variant="warning" className="py-2" data-testid="zone-import-problems">
                <div className="fw-semibold mb-1">Lines that cannot be imported</div>
                <ul className="mb-0 small">
                  {preview.problems.map((p) => (
                    <li key={`${p.line}-${p.reason}`}>
                      Line {p.line}: {p.reason} — <code>{p.text}</code>
                    </li>
                  ))}
                </ul>
                {preview.counts.problems > preview.problems.length && (
                  <div className="small">…and {preview.counts.problems - preview.problems.length} more</div>
                )}
              </Alert>
            )}
            {preview.reported.length > 0 && (
              <details className="mb-2 small">
                <summary>Reported, not applied ({preview.reported.length})</summary>
                <ul className="mb-0">
                  {preview.reported.map((p) => (
                    <li key={p.line}>
                      Line {p.line}: {p.reason} — <code>{p.text}</code>
                    </li>
                  ))}
                </ul>
              </details>
            )}
            <Form.Check
              type="switch"
              id="zone-import-unchanged"
              label="Show unchanged records"
              checked={showUnchanged}
              onChange={(e) => setShowUnchanged(e.target.checked)}
              className="mb-2"
            />
            <Table
              responsive
              size="sm"
              bordered
              className="align-middle fd-record-table"
              data-testid="zone-import-rows"
            >
              <thead>
                <tr>
                  <th style={{ width: '3rem' }} aria-label="Apply" />
                  <th style={{ width: '7rem' }}>Change</th>
                  <th>In the zone</th>
                  <th>In the file</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.key} data-testid="zone-import-row">
                    <td data-label="Apply">
                      {r.kind !== 'unchanged' && (
                        <Form.Check
                          aria-label={`Apply ${KIND_LABEL[r.kind].toLowerCase()} ${(r.file ?? r.current)?.name ?? ''}`}
                          checked={chosen.has(r.key)}
                          onChange={() => toggle(r.key)}
                        />
                      )}
                    </td>
                    <td data-label="Change">
                      <Badge bg={KIND_VARIANT[r.kind]} text={r.kind === 'changed' ? 'dark' : undefined}>
                        {KIND_LABEL[r.kind]}
                      </Badge>
                      {r.fields.length > 0 && <div className="small text-body-secondary">{r.fields.join(', ')}</div>}
                    </td>
                    <td data-label="In the zone" className="small text-break">
                      {r.current ? <code>{show(r.current)}</code> : '—'}
                    </td>
                    <td data-label="In the file" className="small text-break">
                      {r.file ? (
                        <>
                          <code>{show(r.file)}</code>
                          <span className="text-body-secondary"> (line {r.file.line})</span>
                          {r.note && <div className="text-warning-emphasis">{r.note}</div>}
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
                {!rows.length && (
                  <tr>
                    <td colSpan={4} className="text-center text-body-secondary py-3">
                      The zone already has every record of the file
                    </td>
                  </tr>
                )}
              </tbody>
            </Table>
          </>
        )}
      </Modal.Body>
      <Modal.Footer>
        {preview && <span className="me-auto small text-body-secondary">{chosen.size} changes chosen</span>}
        <Button variant="secondary" onClick={close} disabled={apply.isPending}>
          Cancel
        </Button>
        <Button onClick={() => void handleApply()} disabled={!preview || !chosen.size || apply.isPending}>
          {apply.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Apply chosen changes
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
