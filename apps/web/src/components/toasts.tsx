import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
import { TOAST_DELAY_MS } from '@fleetdesk/contract';

interface ToastItem {
  id: number;
  title: string;
  message: ReactNode;
  show: boolean;
}

export interface Toasts {
  /** A "Success" toast, bottom centre, hidden after TOAST_DELAY_MS. */
  success(message: ReactNode): void;
}

const ToastContext = createContext<Toasts | null>(null);

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);

  const success = useCallback((message: ReactNode) => {
    setItems((current) => [...current, { id: nextId++, title: 'Success', message, show: true }]);
  }, []);

  const toasts = useMemo<Toasts>(() => ({ success }), [success]);

  const handleClose = (id: number) =>
    setItems((current) => current.map((item) => (item.id === id ? { ...item, show: false } : item)));

  const handleExited = (id: number) => setItems((current) => current.filter((item) => item.id !== id));

  return (
    <ToastContext.Provider value={toasts}>
      {children}
      <ToastContainer position="bottom-center" containerPosition="fixed" className="p-3" style={{ zIndex: 1090 }}>
        {items.map((item) => (
          <Toast
            key={item.id}
            show={item.show}
            onClose={() => handleClose(item.id)}
            onExited={() => handleExited(item.id)}
            delay={TOAST_DELAY_MS}
            autohide
            role="status"
            aria-live="polite"
          >
            <Toast.Header>
              <strong className="me-auto text-success">{item.title}</strong>
            </Toast.Header>
            <Toast.Body>{item.message}</Toast.Body>
          </Toast>
        ))}
      </ToastContainer>
    </ToastContext.Provider>
  );
}

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToasts must be used inside ToastProvider');
  return toasts;
}
