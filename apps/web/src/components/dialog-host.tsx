import { createContext, lazy, Suspense, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { ApiError, errorMessage } from '../lib/api-error.ts';

// The dialogs themselves (react-bootstrap's Modal) load with the first one opened: a first visit never needs
// them (decision 048).
const DialogModal = lazy(() => import('./dialog-modals.tsx').then((m) => ({ default: m.DialogModal })));

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

export interface DialogRequest extends PromptOptions {
  id: number;
  kind: DialogKind;
  message: ReactNode;
  resolve: (value: boolean | string | null) => void;
}

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
      {current && (
        <Suspense fallback={null}>
          <DialogModal key={current.id} request={current} show={show} onClose={handleClose} onExited={handleExited} />
        </Suspense>
      )}
    </DialogContext.Provider>
  );
}

export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogContext);
  if (!dialogs) throw new Error('useDialogs must be used inside DialogProvider');
  return dialogs;
}
