import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
import { TOAST_DELAY_MS } from '@fleetdesk/contract';
import type { ToastItem } from './toasts.tsx';

/** The toasts of ToastProvider, bottom centre. */
export function ToastList({
  items,
  onClose,
  onExited,
}: {
  items: ToastItem[];
  onClose: (id: number) => void;
  onExited: (id: number) => void;
}) {
  return (
    <ToastContainer position="bottom-center" containerPosition="fixed" className="p-3" style={{ zIndex: 1090 }}>
      {items.map((item) => (
        <Toast
          key={item.id}
          show={item.show}
          onClose={() => onClose(item.id)}
          onExited={() => onExited(item.id)}
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
  );
}
