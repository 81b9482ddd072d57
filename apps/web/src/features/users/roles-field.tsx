import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import { useController, useFormContext } from 'react-hook-form';
import type { Role, UserRole } from '@fleetdesk/contract';
import { useFieldError } from '../../components/form-fields.tsx';
import { RolePicker } from '../../components/pickers/role-picker.tsx';
import type { UserFormValues } from './users-api.ts';

/** The user's roles, added with the role picker (each once) and removed one by one. The form holds their ids. */
export function RolesField({ initial }: { initial: UserRole[] }) {
  const { control } = useFormContext<UserFormValues>();
  const { field } = useController({ name: 'roles', control });
  const error = useFieldError<UserFormValues>('roles');
  const [names, setNames] = useState(() => new Map(initial.map((r) => [r.roleId, r.role.name])));
  const [open, setOpen] = useState(false);
  const ids: string[] = field.value ?? [];

  const handlePick = (role: Role) => {
    setNames((prev) => new Map(prev).set(role._id, role.name));
    if (!ids.includes(role._id)) field.onChange([...ids, role._id]);
    setOpen(false);
  };

  return (
    <Form.Group className="mb-3">
      <Form.Label as="div" id="roles-label">
        Roles
      </Form.Label>
      <ListGroup aria-labelledby="roles-label" className="mb-2">
        {ids.length === 0 && <ListGroup.Item className="text-body-secondary">No roles</ListGroup.Item>}
        {ids.map((id) => (
          <ListGroup.Item key={id} className="d-flex align-items-center justify-content-between gap-2">
            <span>{names.get(id) ?? id}</span>
            <Button
              size="sm"
              variant="outline-danger"
              aria-label={`Remove role ${names.get(id) ?? id}`}
              onClick={() => field.onChange(ids.filter((x) => x !== id))}
            >
              Remove
            </Button>
          </ListGroup.Item>
        ))}
      </ListGroup>
      <Button variant="outline-secondary" onClick={() => setOpen(true)}>
        Add Role
      </Button>
      {error && <div className="invalid-feedback d-block">{error}</div>}
      <RolePicker show={open} onHide={() => setOpen(false)} onPick={handlePick} />
    </Form.Group>
  );
}
