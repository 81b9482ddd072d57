import { useCallback, useState } from 'react';
import Dropdown from 'react-bootstrap/Dropdown';
import Form from 'react-bootstrap/Form';
import { useQuery } from '@tanstack/react-query';
import { fetchMe } from '../lib/auth.ts';
import { useToken } from '../lib/token.ts';
import type { Column } from './list-table.tsx';

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

/** A "Columns" menu of checkboxes, one per optional column. */
export function ColumnChooser<T>({
  options,
  chosen,
  onChange,
}: {
  options: readonly OptionalColumn<T>[];
  chosen: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const toggle = (key: string) => {
    const on = chosen.includes(key);
    onChange(options.map((o) => o.key).filter((k) => (k === key ? !on : chosen.includes(k))));
  };
  return (
    <Dropdown autoClose="outside" align="end" className="fd-column-chooser">
      <Dropdown.Toggle variant="outline-secondary" id="column-chooser">
        Columns{chosen.length ? ` (+${chosen.length})` : ''}
      </Dropdown.Toggle>
      <Dropdown.Menu style={{ minWidth: '16rem' }}>
        <Dropdown.Header>Also show</Dropdown.Header>
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
      </Dropdown.Menu>
    </Dropdown>
  );
}
