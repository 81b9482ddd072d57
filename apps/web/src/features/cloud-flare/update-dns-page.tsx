import { useMemo, useRef, useState, type ComponentProps } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import {
  DNS_BATCH_LIMIT,
  DNS_DATA_TYPES,
  DNS_RECORD_TYPES,
  dnsContentFromFieldTexts,
  dnsDataFieldTexts,
  type DnsRecord,
  type Domain,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { useUnsavedChanges } from '../../components/use-unsaved-changes.ts';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { useDnsRecords, useSaveDnsRecords } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';
import { exportZoneFile, ImportZoneFileModal } from './zone-file.tsx';
import {
  countOf,
  diffRows,
  FIELD_LABELS,
  isProxiable,
  needsPriority,
  newRow,
  rowOf,
  showValue,
  summaryLine,
  validateRow,
  withField,
  type DnsChangeSummary,
  type DnsField,
  type DnsRow,
  type RowErrors,
} from './dns-editor-model.ts';

const describe = (r: { type: string; name: string; content: string }) =>
  `${r.type.toUpperCase()} ${r.name} → ${r.content}`;

function SummaryModal({
  summary,
  pending,
  onConfirm,
  onCancel,
}: {
  summary: DnsChangeSummary | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const total = summary ? countOf(summary) : 0;
  return (
    <Modal show={Boolean(summary)} onHide={pending ? undefined : onCancel} centered size="lg" scrollable>
      <Modal.Header closeButton={!pending}>
        <Modal.Title as="h2" className="h4">
          Review DNS changes
        </Modal.Title>
      </Modal.Header>
      {summary && (
        <Modal.Body data-testid="dns-summary">
          <p className="fw-semibold">{summaryLine(summary)}</p>
          {total > DNS_BATCH_LIMIT && (
            <Alert variant="info" className="py-2">
              {total} changes are more than a Free zone takes in one batch ({DNS_BATCH_LIMIT}): they may be sent in
              several batches. The change stays all or nothing: if a batch fails, the ones already applied are undone.
            </Alert>
          )}
          {summary.added.length > 0 && (
            <>
              <h3 className="h6">Added</h3>
              <ul data-testid="dns-summary-added">
                {summary.added.map((r) => (
                  <li key={r.key}>
                    <code>{describe(r)}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          {summary.changed.length > 0 && (
            <>
              <h3 className="h6">Changed</h3>
              <ul data-testid="dns-summary-changed">
                {summary.changed.map(({ row, changes }) => (
                  <li key={row.key}>
                    <code>
                      {row.type.toUpperCase()} {row.name}
                    </code>
                    :{' '}
                    {changes.map((c, i) => (
                      <span key={c.field}>
                        {i > 0 && '; '}
                        {FIELD_LABELS[c.field]} {showValue(c.field, c.before)} → {showValue(c.field, c.after)}
                      </span>
                    ))}
                  </li>
                ))}
              </ul>
            </>
          )}
          {summary.deleted.length > 0 && (
            <>
              <h3 className="h6">Deleted</h3>
              <ul data-testid="dns-summary-deleted">
                {summary.deleted.map((r) => (
                  <li key={r.id}>
                    <code>{describe(r)}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          <p className="small text-body-secondary mb-0">Cloudflare applies the change as a whole, or not at all.</p>
        </Modal.Body>
      )}
      <Modal.Footer>
        <Button variant="secondary" onClick={onCancel} disabled={pending}>
          Cancel
        </Button>
        <Button variant="primary" onClick={onConfirm} disabled={pending} autoFocus>
          {pending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Confirm
        </Button>
      </Modal.Footer>
    </Modal>
  );
}

function Cell({
  row,
  field,
  error,
  onChange,
  ...props
}: {
  row: DnsRow;
  field: DnsField;
  error?: string;
  onChange: (field: DnsField, value: string) => void;
} & Omit<ComponentProps<typeof Form.Control>, 'onChange' | 'value'>) {
  return (
    <>
      <Form.Control
        size="sm"
        value={row[field]}
        onChange={(event) => onChange(field, event.target.value)}
        isInvalid={Boolean(error)}
        {...props}
      />
      {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
    </>
  );
}

/**
 * CAA, SRV, URI, HTTPS, … go to Cloudflare as `data`: one input per field (Cloudflare's names, ranges and
 * descriptions), written into the row's content text, which stays editable as a whole (the zone-file form).
 */
function DataFields({ row, onChange }: { row: DnsRow; onChange: (field: DnsField, value: string) => void }) {
  const def = DNS_DATA_TYPES[row.type.trim().toUpperCase()];
  if (!def) return null;
  const texts = dnsDataFieldTexts(row.type, row.content);
  const set = (i: number, value: string) => {
    const next = [...texts];
    next[i] = value;
    onChange('content', dnsContentFromFieldTexts(row.type, next));
  };
  return (
    <div className="d-flex flex-wrap gap-1 mt-1" data-testid="dns-data-fields">
      {def.fields.map((f, i) => {
        const label = `${row.type.toUpperCase()} ${f.label}`;
        const width = f.kind === 'text' ? '12rem' : '6.5rem';
        return (
          <Form.Group key={f.key} style={{ width }} controlId={`${row.key}-${f.key}`}>
            <Form.Label className="small text-body-secondary mb-0">{f.label}</Form.Label>
            {f.kind === 'choice' ? (
              <Form.Select
                size="sm"
                aria-label={label}
                title={f.hint}
                value={texts[i] ?? ''}
                onChange={(event) => set(i, event.target.value)}
              >
                <option value="">—</option>
                {f.options?.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </Form.Select>
            ) : (
              <Form.Control
                size="sm"
                aria-label={label}
                title={f.hint}
                placeholder={f.optional ? 'optional' : undefined}
                type={f.kind === 'text' ? 'text' : 'number'}
                min={f.min}
                max={f.max}
                step={f.kind === 'integer' ? 1 : 'any'}
                value={texts[i] ?? ''}
                onChange={(event) => set(i, event.target.value)}
              />
            )}
          </Form.Group>
        );
      })}
    </div>
  );
}

function DnsEditor({
  domain,
  records,
  refreshing,
  onRefresh,
}: {
  domain: Domain;
  records: DnsRecord[];
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const save = useSaveDnsRecords(domain._id);
  const [rows, setRows] = useState<DnsRow[]>(() => records.map(rowOf));
  const [showErrors, setShowErrors] = useState(false);
  const [summary, setSummary] = useState<DnsChangeSummary | null>(null);
  const [filter, setFilter] = useState('');
  const [importing, setImporting] = useState(false);
  const [exporting, setExporting] = useState(false);
  const nextKey = useRef(1);
  const byId = useMemo(() => new Map(records.map((r) => [r.id, rowOf(r)])), [records]);

  const diff = useMemo(() => diffRows(records, rows), [records, rows]);
  const changedKeys = useMemo(() => new Set(diff.summary.changed.map((c) => c.row.key)), [diff]);
  // Only what will be sent is checked: an untouched record stays as Cloudflare has it.
  const errors = useMemo(() => {
    const out = new Map<string, RowErrors>();
    for (const row of rows) {
      if (row.id && byId.has(row.id) && !changedKeys.has(row.key)) continue;
      const e = validateRow(row);
      if (Object.keys(e).length) out.set(row.key, e);
    }
    return out;
  }, [rows, byId, changedKeys]);

  const handleChange = (key: string, field: DnsField, value: string) =>
    setRows((current) => current.map((r) => (r.key === key ? withField(r, field, value) : r)));
  const handleRemove = (key: string) => setRows((current) => current.filter((r) => r.key !== key));
  const handleAdd = () => {
    setFilter('');
    setRows((current) => [...current, newRow(`new-${nextKey.current++}`)]);
  };
  const handleReset = () => {
    setRows(records.map(rowOf));
    setShowErrors(false);
  };

  const handleRefresh = async () => {
    if (countOf(diff.summary) && !(await dialogs.confirm('Discard the unsaved changes and load the records again?'))) {
      return;
    }
    onRefresh();
  };

  const handleSave = () => {
    setShowErrors(true);
    if (errors.size) {
      void dialogs.error(`Some records are incomplete (${errors.size}): type, name, content and TTL are required.`);
      return;
    }
    if (!countOf(diff.summary)) {
      void dialogs.info('Nothing to save: the records are as Cloudflare has them.');
      return;
    }
    setSummary(diff.summary);
  };

  const handleConfirm = async () => {
    try {
      const result = await save.mutateAsync(diff.changes);
      setSummary(null);
      toasts.success(result.message);
    } catch (error) {
      setSummary(null);
      void dialogs.apiError(error);
    }
  };

  const handleExport = async () => {
    setExporting(true);
    try {
      await exportZoneFile(domain);
    } catch (error) {
      void dialogs.apiError(error);
    } finally {
      setExporting(false);
    }
  };
  const handleImport = async () => {
    if (countOf(diff.summary) && !(await dialogs.confirm('Discard the unsaved changes and import a zone file?'))) {
      return;
    }
    handleReset();
    setImporting(true);
  };

  const needle = filter.trim().toLowerCase();
  const visible = needle ? rows.filter((r) => `${r.type} ${r.name} ${r.content}`.toLowerCase().includes(needle)) : rows;
  const pendingCount = countOf(diff.summary);
  useUnsavedChanges(pendingCount > 0 && !save.isPending);

  return (
    <>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <Form.Control
          size="sm"
          type="search"
          placeholder="Filter records"
          aria-label="Filter records"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          style={{ maxWidth: 300 }}
        />
        <span className="small text-body-secondary me-auto">
          {rows.length} record{rows.length === 1 ? '' : 's'}
          {pendingCount > 0 && (
            <Badge bg="warning" text="dark" className="ms-2" data-testid="dns-pending">
              unsaved: {summaryLine(diff.summary)}
            </Badge>
          )}
        </span>
        <Button variant="outline-secondary" onClick={() => void handleImport()}>
          Import zone file
        </Button>
        <Button variant="outline-secondary" onClick={() => void handleExport()} disabled={exporting}>
          Export zone file
        </Button>
        <RefreshButton onRefresh={() => void handleRefresh()} pending={refreshing} />
      </div>
      <Table responsive bordered size="sm" className="align-middle fd-record-table" data-testid="dns-records">
        <thead>
          <tr>
            <th style={{ width: '3rem' }}>#</th>
            <th style={{ width: '8rem' }}>Type</th>
            <th>Name</th>
            <th>Content</th>
            <th style={{ width: '9rem' }}>Proxied</th>
            <th style={{ width: '8rem' }}>TTL</th>
            <th style={{ width: '6rem' }} aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {visible.map((row) => {
            const e = showErrors ? (errors.get(row.key) ?? {}) : {};
            const isNew = !row.id;
            const isChanged = changedKeys.has(row.key);
            const types: readonly string[] = DNS_RECORD_TYPES.includes(row.type as never)
              ? DNS_RECORD_TYPES
              : [row.type, ...DNS_RECORD_TYPES];
            const onChange = (field: DnsField, value: string) => handleChange(row.key, field, value);
            return (
              <tr
                key={row.key}
                className={isNew ? 'table-success' : isChanged ? 'table-warning' : undefined}
                data-testid="dns-row"
              >
                <td className="text-body-secondary small" data-label="">
                  <span className="d-lg-none">Record </span>#{rows.indexOf(row) + 1}
                </td>
                <td data-label="Type">
                  <Form.Select
                    size="sm"
                    aria-label="Type"
                    value={row.type}
                    isInvalid={Boolean(e.type)}
                    onChange={(event) => onChange('type', event.target.value)}
                  >
                    {types.map((t) => (
                      <option key={t} value={t}>
                        {t || '—'}
                      </option>
                    ))}
                  </Form.Select>
                  {e.type && <Form.Control.Feedback type="invalid">{e.type}</Form.Control.Feedback>}
                </td>
                <td data-label="Name">
                  <Cell
                    row={row}
                    field="name"
                    error={e.name}
                    onChange={onChange}
                    aria-label="Name"
                    placeholder={`@, www or www.${domain.domainName}`}
                    autoFocus={isNew && row.name === ''}
                    maxLength={255}
                  />
                </td>
                <td data-label={needsPriority(row.type) ? 'Content · Priority' : 'Content'}>
                  <div className="d-flex gap-1">
                    <div className="flex-grow-1">
                      <Cell
                        row={row}
                        field="content"
                        error={e.content}
                        onChange={onChange}
                        aria-label="Content"
                        maxLength={4096}
                        placeholder={DNS_DATA_TYPES[row.type.toUpperCase()]?.example}
                      />
                      <DataFields row={row} onChange={onChange} />
                    </div>
                    {needsPriority(row.type) && (
                      <div style={{ width: '6rem' }}>
                        <Cell
                          row={row}
                          field="priority"
                          error={e.priority}
                          onChange={onChange}
                          aria-label="Priority"
                          placeholder="Priority"
                          type="number"
                          min={0}
                          max={65535}
                          step={1}
                        />
                      </div>
                    )}
                  </div>
                </td>
                <td data-label="Proxied">
                  <Form.Select
                    size="sm"
                    aria-label="Proxied"
                    value={row.proxied}
                    disabled={!isProxiable(row.type) && row.proxied === '0'}
                    onChange={(event) => onChange('proxied', event.target.value)}
                  >
                    <option value="1">Proxied</option>
                    <option value="0">DNS only</option>
                  </Form.Select>
                </td>
                <td data-label="TTL">
                  <Cell
                    row={row}
                    field="ttl"
                    error={e.ttl}
                    onChange={onChange}
                    aria-label="TTL"
                    type="number"
                    min={1}
                    step={1}
                    title="1 means Auto"
                  />
                </td>
                <td className="text-end" data-label="">
                  <Button size="sm" variant="outline-danger" onClick={() => handleRemove(row.key)}>
                    Remove
                  </Button>
                </td>
              </tr>
            );
          })}
          {!visible.length && (
            <tr>
              <td colSpan={7} className="text-center text-body-secondary py-3">
                {rows.length ? 'No record matches the filter' : 'No DNS records'}
              </td>
            </tr>
          )}
        </tbody>
      </Table>
      <p className="small text-body-secondary">
        TTL 1 means Auto. Only A, AAAA and CNAME records can be proxied. Names may be given as @, relative (www) or in
        full.
      </p>
      <div className="d-flex flex-wrap gap-2">
        <Button variant="outline-primary" onClick={handleAdd}>
          Add Record
        </Button>
        <Button onClick={handleSave} disabled={save.isPending}>
          Save
        </Button>
        <Button variant="outline-secondary" onClick={handleReset} disabled={!pendingCount || save.isPending}>
          Discard changes
        </Button>
      </div>
      <ImportZoneFileModal domain={domain} show={importing} onHide={() => setImporting(false)} />
      <SummaryModal
        summary={summary}
        pending={save.isPending}
        onConfirm={() => void handleConfirm()}
        onCancel={() => setSummary(null)}
      />
    </>
  );
}

function UpdateDns({ domain }: { domain: Domain }) {
  const query = useDnsRecords(domain._id);
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  return (
    // A fresh editor for every load: after a save (or Refresh) it shows what Cloudflare now has.
    <DnsEditor
      key={query.dataUpdatedAt}
      domain={domain}
      records={query.data.result}
      refreshing={query.isFetching}
      onRefresh={() => void query.refetch()}
    />
  );
}

export function UpdateDnsPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Update DNS" needs="zone" wide>
      {(domain) => <UpdateDns domain={domain} />}
    </CloudFlareSubpage>
  );
}
