import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Table from 'react-bootstrap/Table';
import { CONTENT_RESTORABLE_ACTIONS, REDACTED, type AuditEntry } from '@fleetdesk/contract';
import { useNavigate } from 'react-router';
import { useDialogs } from '../../components/dialog-host.tsx';
import { formatLocalDateTime } from '../../lib/format.ts';
import { fleetPlanPath, useRevert } from '../fleet/fleet-api.ts';
import { RestorePanel } from '../content-snapshots/restore-panel.tsx';

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-body-secondary">—</span>;
  if (value === REDACTED) return <Badge bg="secondary">redacted</Badge>;
  if (typeof value === 'string') return <span className="text-break">{value}</span>;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return <span className="text-break">{value.length ? value.join(', ') : '(none)'}</span>;
  }
  return <code className="text-break">{JSON.stringify(value)}</code>;
}

/**
 * One entry: its before/after diff field by field, and its details. Secrets arrive redacted. A revertible change
 * offers "Revert" (a fleet plan); a content change "Restore", previewed here file by file (decision 078).
 */
export function AuditEntryModal({ entry, onHide }: { entry: AuditEntry | null; onHide: () => void }) {
  const [restoring, setRestoring] = useState<string | null>(null);
  const hide = () => {
    setRestoring(null);
    onHide();
  };
  const revert = useRevert();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const diff = Object.entries(entry?.diff ?? {});
  const details = Object.entries(entry?.details ?? {});
  return (
    <Modal show={Boolean(entry)} onHide={hide} size="lg" centered scrollable aria-labelledby="audit-entry-title">
      <Modal.Header closeButton>
        <Modal.Title as="h2" className="h5" id="audit-entry-title">
          {entry && `${entry.sentence} (№ ${entry.auditNo})`}
        </Modal.Title>
      </Modal.Header>
      {entry && restoring && (
        <Modal.Body>
          <RestorePanel snapshotId={restoring} onBack={() => setRestoring(null)} />
        </Modal.Body>
      )}
      {entry && !restoring && (
        <Modal.Body>
          <dl className="row mb-3">
            <dt className="col-sm-3">When</dt>
            <dd className="col-sm-9">{formatLocalDateTime(entry.at)}</dd>
            <dt className="col-sm-3">Who</dt>
            <dd className="col-sm-9">{entry.username ?? '—'}</dd>
            <dt className="col-sm-3">Record</dt>
            <dd className="col-sm-9 text-break">{entry.entityId ?? '—'}</dd>
            {entry.requestId && (
              <>
                <dt className="col-sm-3">Request</dt>
                <dd className="col-sm-9 text-break">{entry.requestId}</dd>
              </>
            )}
          </dl>
          {diff.length > 0 && (
            <Table size="sm" bordered responsive className="align-middle text-break">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {diff.map(([field, change]) => (
                  <tr key={field}>
                    <th scope="row">{field}</th>
                    <td>
                      <Value value={change.before} />
                    </td>
                    <td>
                      <Value value={change.after} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
          {details.length > 0 && (
            <Table size="sm" bordered responsive className="align-middle text-break">
              <thead>
                <tr>
                  <th scope="col">Detail</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {details.map(([key, value]) => (
                  <tr key={key}>
                    <th scope="row">{key}</th>
                    <td>
                      <Value value={value} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
          {diff.length === 0 && details.length === 0 && (
            <p className="text-body-secondary mb-0">No changes recorded.</p>
          )}
        </Modal.Body>
      )}
      <Modal.Footer>
        {/* Restore previews the files first; Revert plans first (nothing changes until the plan is run). */}
        {entry?.revert.snapshotId ? (
          !restoring && (
            <Button
              variant="outline-warning"
              className="me-auto"
              onClick={() => setRestoring(entry.revert.snapshotId!)}
            >
              Restore
            </Button>
          )
        ) : entry?.revert.possible ? (
          <Button
            variant="outline-warning"
            className="me-auto"
            disabled={revert.isPending}
            onClick={() =>
              revert.mutate(
                { auditId: entry._id },
                {
                  onSuccess: (plan) => {
                    onHide();
                    void navigate(fleetPlanPath(plan._id));
                  },
                  onError: (err) => void dialogs.apiError(err),
                },
              )
            }
          >
            Revert
          </Button>
        ) : (
          entry?.revert.reason && (
            <span className="me-auto small text-body-secondary" data-testid="revert-reason">
              {/* A content change's reasons say "not restorable" themselves. */}
              {CONTENT_RESTORABLE_ACTIONS.includes(entry.action) ? '' : 'Not revertible: '}
              {entry.revert.reason}
            </span>
          )
        )}
        <Button variant="secondary" onClick={hide}>
          Close
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
