import { useState } from 'react';
import { useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import type { UseMutationResult } from '@tanstack/react-query';
import type { ApiError } from '../lib/api-error.ts';
import { LinkButton } from './link-button.tsx';
import { ConfirmModal } from './confirm-modal.tsx';
import { useDialogs } from './dialog-host.tsx';
import { useToasts } from './toasts.tsx';

export interface DeleteViewProps {
  /** "Brand": the title, the toast "Brand deleted successfully" and, lower-cased, the question. */
  entity: string;
  id: string;
  useRemove: () => UseMutationResult<unknown, ApiError, string>;
  /** Where to go after the delete (the list). */
  doneTo: string;
  /** Where Cancel goes (the edit page). */
  cancelTo: string;
  /** Replaces "Are you sure you want to delete this <entity>?". */
  message?: string;
}

/** The delete route: a confirm dialog; only Confirm calls DELETE. */
export function DeleteView({ entity, id, useRemove, doneTo, cancelTo, message }: DeleteViewProps) {
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const toasts = useToasts();
  const remove = useRemove();
  const [show, setShow] = useState(true);

  const handleCancel = () => void navigate(cancelTo, { replace: true });

  const handleConfirm = async () => {
    try {
      await remove.mutateAsync(id);
    } catch (error) {
      setShow(false);
      void dialogs.apiError(error);
      return;
    }
    toasts.success(`${entity} deleted successfully`);
    await navigate(doneTo, { replace: true });
  };

  return (
    <section>
      <h1 className="h3 mb-3">Delete {entity}</h1>
      {!show && (
        <div className="d-flex gap-2">
          <Button variant="danger" onClick={() => setShow(true)}>
            Delete {entity}
          </Button>
          <LinkButton to={cancelTo} variant="outline-secondary">
            Cancel
          </LinkButton>
        </div>
      )}
      <ConfirmModal
        show={show}
        message={message ?? `Are you sure you want to delete this ${entity.toLowerCase()}?`}
        confirmVariant="danger"
        pending={remove.isPending}
        onConfirm={() => void handleConfirm()}
        onCancel={handleCancel}
      />
    </section>
  );
}
