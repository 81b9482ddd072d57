import { Fragment, useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { useDismiss } from '../components/use-dismiss.ts';
import { createItemsFor } from './create-menu-items.ts';

const MENU_ID = 'create-menu';

/**
 * The header's create menu: "New" and what the signed-in user may create, "Launch a site" first. Bootstrap's
 * dropdown classes without react-bootstrap's Dropdown and its positioning library (decision 048), as the column
 * chooser: it opens below the button, aligned to its end, and closes on Escape (focus back on the button), a
 * click outside, focus leaving it, or a choice. Arrow keys, Home and End move between the items; Tab does too.
 * Rendered by the signed-in shell's layout, so the signed-out pages never load it.
 */
export function CreateMenu({ rules }: { rules: readonly string[] }) {
  const items = createItemsFor(rules);
  const [open, setOpen] = useState(false);
  const closeMenu = useCallback(() => setOpen(false), []);
  // Which item takes the focus when the menu opens: the first, or the last (ArrowUp on the button).
  const [focusOnOpen, setFocusOnOpen] = useState<'first' | 'last'>('first');
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  const itemsOf = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

  useEffect(() => {
    if (!open) return;
    const all = itemsOf();
    (focusOnOpen === 'last' ? all[all.length - 1] : all[0])?.focus();
  }, [open, focusOnOpen]);
  useDismiss(open, closeMenu, box, button);

  if (!items.length) return null;

  const openWith = (where: 'first' | 'last') => {
    setFocusOnOpen(where);
    setOpen(true);
  };

  const onButtonKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    if (open) itemsOf()[event.key === 'ArrowUp' ? itemsOf().length - 1 : 0]?.focus();
    else openWith(event.key === 'ArrowUp' ? 'last' : 'first');
  };

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const all = itemsOf();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === 'ArrowDown'
        ? (at + 1) % all.length
        : event.key === 'ArrowUp'
          ? (at - 1 + all.length) % all.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? all.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    all[next]?.focus();
  };

  return (
    <div
      ref={box}
      className="dropdown fd-create-menu me-2"
      // Tab past the last item (or back before the button) leaves the menu: it closes behind the focus.
      onBlur={(event) => {
        if (open && !box.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        id="create-menu-button"
        className={`btn btn-outline-light btn-sm d-flex align-items-center gap-1 dropdown-toggle${open ? ' show' : ''}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? MENU_ID : undefined}
        aria-label="New"
        title="Create something or launch a site"
        onClick={() => (open ? setOpen(false) : openWith('first'))}
        onKeyDown={onButtonKey}
      >
        <svg width="16" height="16" viewBox="0 0 16 16" fill="currentColor" aria-hidden="true">
          <path d="M8 2a.75.75 0 0 1 .75.75v4.5h4.5a.75.75 0 0 1 0 1.5h-4.5v4.5a.75.75 0 0 1-1.5 0v-4.5h-4.5a.75.75 0 0 1 0-1.5h4.5v-4.5A.75.75 0 0 1 8 2" />
        </svg>
        {/* Icon only on a phone: the header has the menu, the name, the search and Logout to fit. Not "Create": the
            forms' submit buttons are called that. */}
        <span className="d-none d-md-inline">New</span>
      </button>
      {open && (
        <div
          ref={menu}
          id={MENU_ID}
          role="menu"
          aria-labelledby="create-menu-button"
          className="dropdown-menu dropdown-menu-end show"
          data-bs-popper="static"
          // The console's light menu, not the navbar's dark one.
          data-bs-theme="light"
          onKeyDown={onMenuKey}
        >
          {items.map((item, i) => (
            <Fragment key={item.to}>
              <Link role="menuitem" className="dropdown-item" to={item.to} onClick={() => setOpen(false)}>
                {item.label}
              </Link>
              {/* Launching first, apart from the single forms. */}
              {i === 0 && items.length > 1 && <hr className="dropdown-divider" />}
            </Fragment>
          ))}
        </div>
      )}
    </div>
  );
}
