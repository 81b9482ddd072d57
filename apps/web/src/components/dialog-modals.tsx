import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import { ConfirmModal } from './confirm-modal.tsx';
import type { DialogKind, DialogRequest } from './dialog-host.tsx';

const TITLES: Record<DialogKind, string> = {
  success: 'Success',
  error: 'Error',
  info: 'Info',
  confirm: 'Confirm',
  prompt: 'Input',
};

/** The dialog for one request of DialogProvider's queue. */
export function DialogModal({ request, show, onClose, onExited }: ModalProps) {
  if (request.kind === 'confirm') {
    return (
      <ConfirmModal
        show={show}
        title={request.title ?? TITLES.confirm}
        message={request.message}
        confirmLabel={request.confirmLabel}
        cancelLabel={request.cancelLabel}
        confirmVariant={request.confirmVariant}
        onConfirm={() => onClose(true)}
        onCancel={() => onClose(false)}
        onExited={onExited}
      />
    );
  }
  if (request.kind === 'prompt')
    return <PromptModal request={request} show={show} onClose={onClose} onExited={onExited} />;
  return <MessageModal request={request} show={show} onClose={onClose} onExited={onExited} />;
}

interface ModalProps {
  request: DialogRequest;
  show: boolean;
  onClose: (value: boolean | string | null) => void;
  onExited: () => void;
}

const TITLE_CLASS: Partial<Record<DialogKind, string>> = { success: 'text-success', error: 'text-danger' };

function MessageModal({ request, show, onClose, onExited }: ModalProps) {
  return (
    <Modal show={show} onHide={() => onClose(true)} onExited={onExited} centered aria-labelledby="dialog-title">
      <Modal.Header closeButton>
        <Modal.Title as="h2" id="dialog-title" className={`h4 ${TITLE_CLASS[request.kind] ?? ''}`}>
          {request.title ?? TITLES[request.kind]}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body className="text-break">{request.message}</Modal.Body>
      <Modal.Footer>
        <Button variant="primary" onClick={() => onClose(true)} autoFocus>
          OK
        </Button>
      </Modal.Footer>
    </Modal>
  );
}

function PromptModal({ request, show, onClose, onExited }: ModalProps) {
  const [value, setValue] = useState(request.defaultValue ?? '');
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    onClose(value);
  };
  return (
    <Modal show={show} onHide={() => onClose(null)} onExited={onExited} centered aria-labelledby="prompt-title">
      <Form onSubmit={handleSubmit}>
        <Modal.Header closeButton>
          <Modal.Title as="h2" className="h4" id="prompt-title">
            {request.title ?? TITLES.prompt}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {request.label !== undefined && <p>{request.message}</p>}
          <Form.Group controlId="prompt-input">
            <Form.Label>{request.label ?? request.message}</Form.Label>
            <Form.Control
              type={request.inputType ?? 'text'}
              value={value}
              placeholder={request.placeholder}
              onChange={(event) => setValue(event.target.value)}
              autoFocus
            />
          </Form.Group>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={() => onClose(null)}>
            {request.cancelLabel ?? 'Cancel'}
          </Button>
          <Button variant={request.confirmVariant ?? 'primary'} type="submit">
            {request.confirmLabel ?? 'OK'}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
}
