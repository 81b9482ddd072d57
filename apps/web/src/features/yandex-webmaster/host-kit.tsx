import { useState, type FormEvent, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Table from 'react-bootstrap/Table';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';

/** The pieces the host page's tabs share: loading states, record tables, the URL form, value formats. */

/** The message of a failed action, or the spec's fallback when the server gave none. */
export const failure = (error: unknown, fallback: string) =>
  error instanceof ApiError && error.status !== 0 && error.message ? error.message : fallback;

export function Loaded<T>({ q, children }: { q: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (q.isPending) return <LoadingSpinner />;
  if (q.isError) return <ErrorBox detail={errorMessage(q.error)} onRefresh={() => void q.refetch()} />;
  return <>{children(q.data)}</>;
}

/** A host's records: cards below 768 px (fd-record-table, labelled by the headers), a row when there are none. */
export function RecordTable<T>({
  columns,
  rows,
  rowKey,
  empty,
  testId,
}: {
  columns: { label: string; className?: string; cell: (row: T) => ReactNode }[];
  rows: T[];
  rowKey: (row: T) => string;
  empty: string;
  testId?: string;
}) {
  return (
    <Table responsive size="sm" hover className="fd-record-table" data-testid={testId}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.label}>{c.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={columns.length} className="text-body-secondary">
              {empty}
            </td>
          </tr>
        )}
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c) => (
              <td key={c.label} data-label={c.label} className={c.className}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export const show = (v: unknown) => (v === undefined || v === null || v === '' ? '—' : String(v));
export const when = (v?: string) => {
  if (!v) return '—';
  const d = new Date(v.replace(',', '.'));
  return Number.isNaN(d.getTime()) ? v : d.toLocaleString();
};

/** The host's name in its id, e.g. https:example.com:443 → example.com. */
export const hostNameOf = (hostId: string) => hostId.split(':')[1] ?? hostId;

export function UrlForm({
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
