import { useDeferredValue, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import Modal from 'react-bootstrap/Modal';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import type { SearchResult } from '@fleetdesk/contract';
import { api } from '../lib/api-client.ts';
import { errorMessage } from '../lib/api-error.ts';
import { paletteItems, parseQuery, type PaletteItem } from './command-palette-model.ts';

/** Typing waits this long before the search goes out. */
const SEARCH_DELAY_MS = 200;

function useDebounced(value: string, ms: number) {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** The command palette: jump to any screen, any item found by the one search call, or an action on a domain. */
export function CommandPalette({ show, onHide }: { show: boolean; onHide: () => void }) {
  return (
    <Modal show={show} onHide={onHide} aria-labelledby="command-palette-title" className="fd-palette">
      {show && <PaletteBody onHide={onHide} />}
    </Modal>
  );
}

function PaletteBody({ onHide }: { onHide: () => void }) {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const term = parseQuery(useDebounced(text, SEARCH_DELAY_MS)).term;
  const search = useQuery({
    queryKey: ['command-palette', term],
    queryFn: ({ signal }) => api.get<SearchResult>('/api/search', { q: term }, signal),
    enabled: term.length > 0,
    staleTime: 10_000,
  });
  const hits = useDeferredValue(term ? search.data?.hits : undefined);
  const items = paletteItems(text, hits);
  const current = Math.min(active, Math.max(0, items.length - 1));

  const choose = (item: PaletteItem) => {
    if (item.fill !== undefined) {
      setText(item.fill);
      setActive(0);
      inputRef.current?.focus();
      return;
    }
    onHide();
    if (item.to) void navigate(item.to);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current + step + items.length) % Math.max(1, items.length));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const item = items[current];
      if (item) choose(item);
    }
  };

  let lastGroup = '';
  return (
    <>
      <Modal.Header closeButton className="py-2">
        <Modal.Title id="command-palette-title" className="fs-6">
          Search and jump
        </Modal.Title>
      </Modal.Header>
      <Modal.Body className="p-0">
        <div className="p-2 border-bottom d-flex align-items-center gap-2">
          <Form.Control
            ref={inputRef}
            autoFocus
            type="search"
            role="combobox"
            aria-expanded="true"
            aria-controls="command-palette-list"
            aria-activedescendant={items[current] ? `palette-${current}` : undefined}
            aria-label="Search domains, servers, clouds, users, brands, registrators or screens"
            placeholder="Domain, IP, screen or action…"
            maxLength={100}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
          />
          {search.isFetching && <Spinner animation="border" size="sm" role="status" aria-label="Searching" />}
        </div>
        {search.isError && term && <div className="text-danger small px-3 pt-2">{errorMessage(search.error)}</div>}
        <ul id="command-palette-list" role="listbox" aria-label="Results" className="list-unstyled m-0 fd-palette-list">
          {items.length === 0 && (
            <li className="text-body-secondary px-3 py-3" role="presentation">
              {search.isFetching ? 'Searching…' : `Nothing matches "${text.trim()}"`}
            </li>
          )}
          {items.map((item, index) => {
            const header = item.group !== lastGroup ? item.group : null;
            lastGroup = item.group;
            return (
              <li key={item.id} role="presentation">
                {header && (
                  <div className="fd-palette-group" role="presentation">
                    {header}
                  </div>
                )}
                <div
                  id={`palette-${index}`}
                  role="option"
                  aria-selected={index === current}
                  className={`fd-palette-item${index === current ? ' active' : ''}`}
                  onMouseMove={() => index !== current && setActive(index)}
                  onClick={() => choose(item)}
                >
                  <span className="text-truncate">{item.label}</span>
                  {item.hint && <small className="text-truncate fd-palette-hint">{item.hint}</small>}
                </div>
              </li>
            );
          })}
        </ul>
      </Modal.Body>
      <Modal.Footer className="py-1 small text-body-secondary justify-content-start">
        ↑ ↓ to move · Enter to open · Esc to close
      </Modal.Footer>
    </>
  );
}
