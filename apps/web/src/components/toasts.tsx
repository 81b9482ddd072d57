import { createContext, lazy, Suspense, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

// react-bootstrap's Toast loads with the first toast: a first visit never shows one (decision 048).
const ToastList = lazy(() => import('./toast-list.tsx').then((m) => ({ default: m.ToastList })));

export interface ToastItem {
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
      {items.length > 0 && (
        <Suspense fallback={null}>
          <ToastList items={items} onClose={handleClose} onExited={handleExited} />
        </Suspense>
      )}
    </ToastContext.Provider>
  );
}

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToasts must be used inside ToastProvider');
  return toasts;
}
