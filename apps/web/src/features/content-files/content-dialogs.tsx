import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import { errorMessage } from '../../lib/api-error.ts';
import { useCreateDir, useRename } from './content-files-api.ts';

function NameDialog({
  title,
  label,
  initial,
  pending,
  error,
  onSubmit,
  onClose,
}: {
  title: string;
  label: string;
  initial: string;
  pending: boolean;
  error: string | null;
  onSubmit: (name: string) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(initial);
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    onSubmit(name);
  };
  return (
    <Modal show onHide={pending ? undefined : onClose} centered>
      <Form onSubmit={submit} noValidate>
        <Modal.Header closeButton={!pending}>
          <Modal.Title as="h2" className="h5">
            {title}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Form.Group controlId="content-file-name">
            <Form.Label>{label}</Form.Label>
            <Form.Control
              value={name}
              onChange={(e) => setName(e.target.value)}
              isInvalid={!!error}
              maxLength={255}
              autoFocus
            />
            <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
          </Form.Group>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="outline-secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" disabled={pending || !name.trim()}>
            Save
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}

export function RenameDialog({
  id,
  path,
  current,
  onClose,
}: {
  id: string;
  path: string;
  current: string;
  onClose: () => void;
}) {
  const rename = useRename(id);
  return (
    <NameDialog
      title="Rename"
      label="New name"
      initial={current}
      pending={rename.isPending}
      error={rename.isError ? (rename.error.fields?.name ?? errorMessage(rename.error)) : null}
      onSubmit={(name) => rename.mutate({ path, name }, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}

export function NewFolderDialog({ id, dir, onClose }: { id: string; dir: string; onClose: () => void }) {
  const create = useCreateDir(id);
  return (
    <NameDialog
      title="New Folder"
      label="Folder name"
      initial=""
      pending={create.isPending}
      error={create.isError ? (create.error.fields?.name ?? errorMessage(create.error)) : null}
      onSubmit={(name) => create.mutate({ path: dir, name }, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}
