import type { ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Spinner from 'react-bootstrap/Spinner';

export interface ConfirmModalProps {
  show: boolean;
  title?: string;
  message: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  confirmVariant?: string;
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  onExited?: () => void;
}

/** The confirm dialog: Cancel and Confirm. Used by DialogHost and DeleteView. */
export function ConfirmModal({
  show,
  title = 'Confirm',
  message,
  confirmLabel = 'Confirm',
  cancelLabel = 'Cancel',
  confirmVariant = 'primary',
  pending = false,
  onConfirm,
  onCancel,
  onExited,
}: ConfirmModalProps) {
  return (
    <Modal
      show={show}
      onHide={pending ? undefined : onCancel}
      onExited={onExited}
      centered
      aria-labelledby="confirm-title"
    >
      <Modal.Header closeButton={!pending}>
        <Modal.Title as="h2" className="h4" id="confirm-title">
          {title}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>{message}</Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={onCancel} disabled={pending}>
          {cancelLabel}
        </Button>
        <Button variant={confirmVariant} onClick={onConfirm} disabled={pending} autoFocus>
          {pending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          {confirmLabel}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
