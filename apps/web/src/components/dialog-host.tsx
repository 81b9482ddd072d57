import { createContext, useCallback, useContext, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import { ApiError, errorMessage } from '../lib/api-error.ts';
import { ConfirmModal } from './confirm-modal.tsx';

export type DialogKind = 'success' | 'error' | 'info' | 'confirm' | 'prompt';

export interface MessageOptions {
  title?: string;
}

export interface ConfirmOptions extends MessageOptions {
  confirmLabel?: string;
  cancelLabel?: string;
  confirmVariant?: string;
}

export interface PromptOptions extends ConfirmOptions {
  label?: string;
  defaultValue?: string;
  inputType?: string;
  placeholder?: string;
}

export interface Dialogs {
  success(message: ReactNode, options?: MessageOptions): Promise<void>;
  error(message: ReactNode, options?: MessageOptions): Promise<void>;
  info(message: ReactNode, options?: MessageOptions): Promise<void>;
  /** Resolves true on Confirm, false on Cancel or close. */
  confirm(message: ReactNode, options?: ConfirmOptions): Promise<boolean>;
  /** Resolves the entered text on OK, null on Cancel or close. */
  prompt(message: ReactNode, options?: PromptOptions): Promise<string | null>;
  /** The generic error handler: the server's message (or "Something went wrong") under the title Error. */
  apiError(error: unknown): Promise<void>;
}

interface DialogRequest extends PromptOptions {
  id: number;
  kind: DialogKind;
  message: ReactNode;
  resolve: (value: boolean | string | null) => void;
}

const TITLES: Record<DialogKind, string> = {
  success: 'Success',
  error: 'Error',
  info: 'Info',
  confirm: 'Confirm',
  prompt: 'Input',
};

const DialogContext = createContext<Dialogs | null>(null);

let nextId = 1;

/** Renders one dialog at a time from a queue; the hook `useDialogs` opens them. */
export function DialogProvider({ children }: { children: ReactNode }) {
  const [queue, setQueue] = useState<DialogRequest[]>([]);
  const [closing, setClosing] = useState<number | null>(null);
  const current = queue[0];

  const open = useCallback(
    (kind: DialogKind, message: ReactNode, options: PromptOptions = {}) =>
      new Promise<boolean | string | null>((resolve) => {
        setQueue((items) => [...items, { ...options, id: nextId++, kind, message, resolve }]);
      }),
    [],
  );

  const dialogs = useMemo<Dialogs>(
    () => ({
      success: async (message, options) => void (await open('success', message, options)),
      error: async (message, options) => void (await open('error', message, options)),
      info: async (message, options) => void (await open('info', message, options)),
      confirm: async (message, options) => (await open('confirm', message, options)) === true,
      prompt: async (message, options) => {
        const value = await open('prompt', message, options);
        return typeof value === 'string' ? value : null;
      },
      apiError: async (error) => {
        // A 401 already ended the session and went to /login: a dialog would only confuse.
        if (error instanceof ApiError && error.status === 401) return;
        await open('error', errorMessage(error));
      },
    }),
    [open],
  );

  const handleClose = (value: boolean | string | null) => {
    if (!current || closing === current.id) return;
    current.resolve(value);
    setClosing(current.id);
  };

  const handleExited = () => {
    setQueue((items) => items.slice(1));
    setClosing(null);
  };

  const show = Boolean(current) && closing !== current?.id;

  return (
    <DialogContext.Provider value={dialogs}>
      {children}
      {current?.kind === 'confirm' ? (
        <ConfirmModal
          key={current.id}
          show={show}
          title={current.title ?? TITLES.confirm}
          message={current.message}
          confirmLabel={current.confirmLabel}
          cancelLabel={current.cancelLabel}
          confirmVariant={current.confirmVariant}
          onConfirm={() => handleClose(true)}
          onCancel={() => handleClose(false)}
          onExited={handleExited}
        />
      ) : current?.kind === 'prompt' ? (
        <PromptModal key={current.id} request={current} show={show} onClose={handleClose} onExited={handleExited} />
      ) : current ? (
        <MessageModal key={current.id} request={current} show={show} onClose={handleClose} onExited={handleExited} />
      ) : null}
    </DialogContext.Provider>
  );
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

export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogContext);
  if (!dialogs) throw new Error('useDialogs must be used inside DialogProvider');
  return dialogs;
}
