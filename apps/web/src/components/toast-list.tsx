import { useEffect, useRef } from 'react';
import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
import { TOAST_DELAY_MS } from '@fleetdesk/contract';
import type { ToastItem } from './toasts.tsx';

/** The property `.fd-main` adds to its bottom padding (styles.css): the toast stack's height while it is shown. */
const TOAST_ROOM_PROPERTY = '--fd-toast-room';

/**
 * While toasts are shown, the page keeps room at its bottom as tall as their stack, so that the last rows of a list
 * can always be scrolled clear of them (issue 47): a toast sits over the page, bottom centre, as the spec has it,
 * but never over something the operator cannot get to.
 */
function useToastRoom() {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty(TOAST_ROOM_PROPERTY, `${Math.ceil(el.offsetHeight)}px`);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.style.removeProperty(TOAST_ROOM_PROPERTY);
    };
  }, []);
  return container;
}

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
  const container = useToastRoom();
  return (
    <ToastContainer
      ref={container}
      position="bottom-center"
      containerPosition="fixed"
      className="p-3"
      style={{ zIndex: 1090 }}
    >
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
