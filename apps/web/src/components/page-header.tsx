import { Children, useId, useState, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';

/**
 * A page's title and its header actions. From 768 px the actions sit beside the title; below, they fold into
 * one Actions button that opens them as a stacked menu, so they never wrap into rows of half-cut buttons.
 */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const hasActions = Children.toArray(children).some(Boolean);
  return (
    <div className="fd-page-header">
      <h1 className="h3 mb-0 me-auto">{title}</h1>
      {hasActions && (
        <>
          <Button
            variant="outline-secondary"
            className="fd-actions-toggle"
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen((v) => !v)}
          >
            Actions
            <span aria-hidden="true" className="ms-1">
              {open ? '▴' : '▾'}
            </span>
          </Button>
          <div id={menuId} className={`fd-page-actions${open ? ' open' : ''}`}>
            {children}
          </div>
        </>
      )}
    </div>
  );
}
