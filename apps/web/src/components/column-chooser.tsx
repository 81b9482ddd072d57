import { useCallback, useRef, useState } from 'react';
import Form from 'react-bootstrap/Form';
import { useQuery } from '@tanstack/react-query';
import { fetchMe } from '../lib/auth.ts';
import { useToken } from '../lib/token.ts';
import type { Column } from './list-table.tsx';
import { useDismiss } from './use-dismiss.ts';

/** A column a list can add on request: a key (kept in the browser and sent to the export) and its label. */
export interface OptionalColumn<T> extends Column<T> {
  key: string;
  /** The chooser's label (the header may be shorter). */
  label: string;
}

const storageKey = (list: string, userId: string) => `fleetdesk.columns.${list}.${userId}`;

function read(key: string, known: readonly string[]): string[] {
  try {
    const raw = window.localStorage.getItem(key);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? known.filter((k) => parsed.includes(k)) : [];
  } catch {
    return [];
  }
}

/**
 * The optional columns the signed-in user chose for a list, remembered in this browser per user (localStorage).
 * Returns the chosen keys in the definitions' order and a setter.
 */
export function useColumnChoice<T>(list: string, options: readonly OptionalColumn<T>[]) {
  const token = useToken();
  // The same query the header uses: who is signed in.
  const me = useQuery({
    queryKey: ['auth', 'me', token],
    queryFn: ({ signal }) => fetchMe(signal),
    enabled: Boolean(token),
    staleTime: Infinity,
  });
  const userId = me.data?.user._id;
  const known = options.map((o) => o.key);
  const key = userId ? storageKey(list, userId) : null;
  const [state, setState] = useState<{ key: string | null; chosen: string[] }>({ key: null, chosen: [] });
  // Read again when the user (so the storage key) is known or changes.
  if (state.key !== key) setState({ key, chosen: key ? read(key, known) : [] });
  const chosen = state.key === key ? state.chosen : key ? read(key, known) : [];
  const setChosen = useCallback(
    (next: string[]) => {
      setState({ key, chosen: next });
      if (!key) return;
      try {
        window.localStorage.setItem(key, JSON.stringify(next));
      } catch {
        // Storage full or refused: the choice still holds until the page is left.
      }
    },
    [key],
  );
  const shown = options.filter((o) => chosen.includes(o.key));
  return { shown, chosen: shown.map((o) => o.key), setChosen };
}

const MENU_MIN_WIDTH_PX = 256;

/**
 * A "Columns" menu of checkboxes, one per optional column. Bootstrap's dropdown classes without react-bootstrap's
 * Dropdown, whose positioning library was the largest part of a first visit to /domains after React (decision
 * 048): the menu opens below the button, aligned to its end, and closes on Escape or a click outside.
 */
export function ColumnChooser<T>({
  options,
  chosen,
  onChange,
}: {
  options: readonly OptionalColumn<T>[];
  chosen: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const [open, setOpen] = useState(false);
  const closeMenu = useCallback(() => setOpen(false), []);
  // Aligned to the button's end, unless that would run off the left edge (a narrow screen wraps it to the left).
  const [alignEnd, setAlignEnd] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useDismiss(open, closeMenu, box, button);
  const toggle = (key: string) => {
    const on = chosen.includes(key);
    onChange(options.map((o) => o.key).filter((k) => (k === key ? !on : chosen.includes(k))));
  };
  return (
    <div ref={box} className="dropdown fd-column-chooser">
      <button
        ref={button}
        type="button"
        id="column-chooser"
        className={`btn btn-outline-secondary dropdown-toggle${open ? ' show' : ''}`}
        aria-expanded={open}
        aria-controls="column-chooser-menu"
        onClick={() => {
          const right = button.current?.getBoundingClientRect().right ?? Infinity;
          setAlignEnd(right >= MENU_MIN_WIDTH_PX);
          setOpen((o) => !o);
        }}
      >
        Columns{chosen.length ? ` (+${chosen.length})` : ''}
      </button>
      {open && (
        <div
          id="column-chooser-menu"
          className={`dropdown-menu ${alignEnd ? 'dropdown-menu-end' : 'dropdown-menu-start'} show`}
          data-bs-popper="static"
          style={{ minWidth: MENU_MIN_WIDTH_PX }}
        >
          <h6 className="dropdown-header">Also show</h6>
          {options.map((o) => (
            <div key={o.key} className="px-3 py-1 text-nowrap">
              <Form.Check
                type="checkbox"
                id={`column-${o.key}`}
                label={o.label}
                checked={chosen.includes(o.key)}
                onChange={() => toggle(o.key)}
              />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
