import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { cloudFlarePaths } from './cloud-flare-api.ts';

export interface ConfirmActionProps {
  domainId: string;
  /** What the action does, shown on the page. */
  description: ReactNode;
  /** The question in the confirm dialog. */
  question: ReactNode;
  label: string;
  variant?: string;
  run: () => Promise<unknown>;
  /** The success toast. */
  done: string;
}

/**
 * A cloud action that only needs a yes: the confirm dialog opens on arrival (as the delete pages do); only
 * Confirm calls the server, then a toast and back to the Cloud tab. Cancel goes back without a call.
 */
export function ConfirmAction({
  domainId,
  description,
  question,
  label,
  variant = 'danger',
  run,
  done,
}: ConfirmActionProps) {
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const toasts = useToasts();
  const [show, setShow] = useState(true);
  const [pending, setPending] = useState(false);
  const back = cloudFlarePaths.cloudTab(domainId);

  const handleConfirm = async () => {
    setPending(true);
    try {
      await run();
    } catch (error) {
      setPending(false);
      setShow(false);
      void dialogs.apiError(error);
      return;
    }
    toasts.success(done);
    await navigate(back, { replace: true });
  };

  return (
    <>
      <div className="mb-3">{description}</div>
      {!show && (
        <div className="d-flex gap-2">
          <Button variant={variant} onClick={() => setShow(true)}>
            {label}
          </Button>
          <LinkButton to={back} variant="outline-secondary">
            Cancel
          </LinkButton>
        </div>
      )}
      <ConfirmModal
        show={show}
        message={question}
        confirmVariant={variant}
        pending={pending}
        onConfirm={() => void handleConfirm()}
        onCancel={() => void navigate(back, { replace: true })}
      />
    </>
  );
}
