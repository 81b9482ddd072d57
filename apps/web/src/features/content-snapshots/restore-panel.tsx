import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import {
  CONTENT_SNAPSHOT_MESSAGES,
  type ContentFileState,
  type ContentRestoreItem,
  type ContentRestoreResult,
} from '@fleetdesk/contract';
import { formatBytes, formatLocalDateTime } from '../../lib/format.ts';
import { useRestore, useRestorePreview } from './content-snapshots-api.ts';

const STATUS: Record<ContentRestoreItem['status'], { text: string; bg: string; dark?: boolean }> = {
  restore: { text: 'Will change', bg: 'primary' },
  same: { text: 'Already matches', bg: 'secondary' },
  changed: { text: CONTENT_SNAPSHOT_MESSAGES.changedSince, bg: 'warning', dark: true },
};
const DOES: Record<ContentRestoreItem['does'], string> = {
  write: 'Put back',
  remove: 'Remove (the change added it)',
  mkdir: 'Make the folder',
  rmdir: 'Remove the folder (if empty)',
};

/** A file's state in a few words: "missing", "folder", "1.2 KB · 3fa9c1d2". */
function State({ s }: { s: ContentFileState }) {
  if (!s.exists) return <span className="text-body-secondary">missing</span>;
  if (s.type === 'directory') return <span>folder</span>;
  return (
    <span className="text-nowrap">
      {formatBytes(s.size)}
      {s.sha256 && <code className="ms-1">{s.sha256.slice(0, 8)}</code>}
    </span>
  );
}

function Outcome({ r }: { r: ContentRestoreResult }) {
  return (
    <Alert variant={r.failed.length ? 'warning' : 'success'} className="mb-0" data-testid="restore-result">
      Restored {r.restored.length} {r.restored.length === 1 ? 'path' : 'paths'}
      {r.left.length > 0 && `; ${r.left.length} left alone`}
      {r.failed.length > 0 && `; ${r.failed.length} failed`}.
      {r.failed.map((f) => (
        <div key={f.path} className="small text-break">
          {f.path}: {f.error}
        </div>
      ))}
      {r.snapshotSkipped && <div className="small">This restore cannot be undone: {r.snapshotSkipped}.</div>}
    </Alert>
  );
}

/**
 * "Restore" of a content change (decision 078): the files it changed, each as it is now, and what Restore will do.
 * A file changed since is left alone unless ticked.
 */
export function RestorePanel({ snapshotId, onBack }: { snapshotId: string; onBack: () => void }) {
  const preview = useRestorePreview(snapshotId);
  const restore = useRestore(snapshotId);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [done, setDone] = useState<ContentRestoreResult | null>(null);
  const p = preview.data;
  const toggle = (path: string) =>
    setTicked((prev) => {
      const next = new Set(prev);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  const count = (p?.counts.restore ?? 0) + ticked.size;

  if (preview.isPending) return <Spinner animation="border" size="sm" role="status" aria-label="Reading the files" />;
  if (preview.isError)
    return (
      <Alert variant="danger" className="mb-0">
        {preview.error.message}
      </Alert>
    );
  if (!p) return null;
  return (
    <div data-testid="restore-panel">
      <p className="mb-2">
        The files the {p.action} changed on <strong>{p.domainName}</strong> on {formatLocalDateTime(p.createdAt)}, as
        they are now. Kept until {formatLocalDateTime(p.expiresAt)}.
      </p>
      {done && <Outcome r={done} />}
      {!p.restorable ? (
        <Alert variant="secondary" className="mb-0" data-testid="restore-reason">
          {p.reason}
        </Alert>
      ) : (
        <>
          <Table size="sm" bordered className="align-middle my-2">
            <thead>
              <tr>
                <th scope="col" className="text-nowrap" style={{ width: '3rem' }}>
                  Tick
                </th>
                <th scope="col">File</th>
                <th scope="col">Before, written, now</th>
              </tr>
            </thead>
            <tbody>
              {p.items.map((i) => {
                const st = STATUS[i.status];
                return (
                  <tr key={i.path} data-testid="restore-row">
                    <td>
                      {i.status === 'changed' && (
                        <Form.Check
                          aria-label={`Restore ${i.path} anyway`}
                          checked={ticked.has(i.path)}
                          onChange={() => toggle(i.path)}
                        />
                      )}
                    </td>
                    <td>
                      <code className="text-break d-block">{i.path}</code>
                      <Badge bg={st.bg} text={st.dark ? 'dark' : undefined} className="text-wrap me-2">
                        {st.text}
                      </Badge>
                      {i.status !== 'same' && <span className="small">{DOES[i.does]}</span>}
                    </td>
                    <td className="small">
                      <div>
                        <span className="text-body-secondary">before </span>
                        <State s={i.before} />
                      </div>
                      <div>
                        <span className="text-body-secondary">written </span>
                        <State s={i.written} />
                      </div>
                      <div>
                        <span className="text-body-secondary">now </span>
                        <State s={i.now} />
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <div className="d-flex flex-wrap gap-2 align-items-center">
            <Button
              variant="warning"
              disabled={count === 0 || restore.isPending}
              onClick={() =>
                restore.mutate(
                  { force: [...ticked] },
                  {
                    onSuccess: (r) => {
                      setDone(r);
                      setTicked(new Set());
                    },
                  },
                )
              }
            >
              {count === 0 ? 'Nothing to restore' : `Restore ${count} ${count === 1 ? 'path' : 'paths'}`}
            </Button>
            {restore.isError && <span className="text-danger small">{restore.error.message}</span>}
          </div>
        </>
      )}
      <Button variant="link" className="px-0 mt-2" onClick={onBack}>
        Back to the entry
      </Button>
    </div>
  );
}
