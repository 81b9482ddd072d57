import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import type { User } from '@fleetdesk/contract';
import { PickerField } from '../../components/picker-field.tsx';
import { UserPicker, userLabel } from '../../components/pickers/user-picker.tsx';
import { AUDIT_ACTIONS_LIST, AUDIT_ENTITIES, auditUsersApi, type AuditFilters } from './audit-log-api.ts';

type UserRef = Pick<User, '_id' | 'username'>;

/** User, entity type, entity id and date range; applied to the URL, which the list reads. */
export function AuditFiltersForm({
  value,
  onApply,
}: {
  value: AuditFilters;
  onApply: (filters: AuditFilters) => void;
}) {
  const [draft, setDraft] = useState<AuditFilters>(value);
  const [picked, setPicked] = useState<UserRef | null>(null);
  const fromUrl = auditUsersApi.useItem(draft.userId && picked?._id !== draft.userId ? draft.userId : undefined);
  const user: UserRef | null = draft.userId
    ? picked?._id === draft.userId
      ? picked
      : { _id: draft.userId, username: fromUrl.data?.username ?? draft.userId }
    : null;

  const set = (name: keyof AuditFilters, v: string) => setDraft((d) => ({ ...d, [name]: v }));
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  const handleClear = () => {
    setDraft({});
    setPicked(null);
    onApply({});
  };

  return (
    <Form onSubmit={handleSubmit} className="border rounded p-3 mb-3" aria-label="Filters">
      <Row className="g-3">
        <Col md={6} lg={4}>
          <PickerField<UserRef>
            label="User"
            value={user}
            onChange={(u) => {
              setPicked(u);
              set('userId', u?._id ?? '');
            }}
            getLabel={userLabel}
            picker={UserPicker as never}
            placeholder="Anyone"
          />
        </Col>
        <Col md={6} lg={4}>
          <Form.Group controlId="audit-entity">
            <Form.Label>Entity</Form.Label>
            <Form.Select value={draft.entity ?? ''} onChange={(e) => set('entity', e.target.value)}>
              <option value="">Any</option>
              {AUDIT_ENTITIES.map((e) => (
                <option key={e.value} value={e.value}>
                  {e.label}
                </option>
              ))}
              {draft.entity && !AUDIT_ENTITIES.some((e) => e.value === draft.entity) && (
                <option value={draft.entity}>{draft.entity}</option>
              )}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col md={12} lg={4}>
          <Form.Group controlId="audit-entity-id">
            <Form.Label>Entity ID</Form.Label>
            <Form.Control
              value={draft.entityId ?? ''}
              onChange={(e) => set('entityId', e.target.value.trim())}
              placeholder="Any"
              maxLength={100}
            />
          </Form.Group>
        </Col>
        <Col sm={6} lg={4}>
          <Form.Group controlId="audit-action">
            <Form.Label>Action</Form.Label>
            <Form.Select value={draft.action ?? ''} onChange={(e) => set('action', e.target.value)}>
              <option value="">Any</option>
              {AUDIT_ACTIONS_LIST.map((a) => (
                <option key={a.value} value={a.value}>
                  {a.label}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col sm={6} lg={4}>
          <Form.Group controlId="audit-sign-ins">
            <Form.Label>Sign-ins</Form.Label>
            <Form.Select value={draft.signIns ?? ''} onChange={(e) => set('signIns', e.target.value)}>
              <option value="">Shown</option>
              <option value="exclude">Left out</option>
              <option value="only">Only sign-ins</option>
            </Form.Select>
          </Form.Group>
        </Col>
        <Col sm={6} lg={4}>
          <Form.Group controlId="audit-from">
            <Form.Label>From</Form.Label>
            <Form.Control type="date" value={draft.from ?? ''} onChange={(e) => set('from', e.target.value)} />
          </Form.Group>
        </Col>
        <Col sm={6} lg={4}>
          <Form.Group controlId="audit-to">
            <Form.Label>To</Form.Label>
            <Form.Control type="date" value={draft.to ?? ''} onChange={(e) => set('to', e.target.value)} />
          </Form.Group>
        </Col>
        <Col lg={4} className="d-flex align-items-end gap-2">
          <Button type="submit">Apply</Button>
          <Button variant="outline-secondary" onClick={handleClear}>
            Clear
          </Button>
        </Col>
      </Row>
    </Form>
  );
}
