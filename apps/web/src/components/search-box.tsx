import { useEffect, useRef, useState, type FormEvent } from 'react';
import Form from 'react-bootstrap/Form';

export interface SearchBoxProps {
  value: string;
  onSearch: (value: string) => void;
  delayMs?: number;
  placeholder?: string;
  autoFocus?: boolean;
}

/** A search input (max width 300px) that reports after a pause in typing, or at once on Enter. */
export function SearchBox({ value, onSearch, delayMs = 300, placeholder = 'Search', autoFocus }: SearchBoxProps) {
  const [text, setText] = useState(value);
  // The last value seen from or sent to the owner; an outside change (e.g. Back) replaces the text.
  const [synced, setSynced] = useState(value);
  if (value !== synced) {
    setSynced(value);
    setText(value);
  }

  const onSearchRef = useRef(onSearch);
  useEffect(() => {
    onSearchRef.current = onSearch;
  });

  useEffect(() => {
    if (text === synced) return;
    const timer = setTimeout(() => {
      setSynced(text);
      onSearchRef.current(text);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [text, synced, delayMs]);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (text === synced) return;
    setSynced(text);
    onSearch(text);
  };

  return (
    <Form role="search" onSubmit={handleSubmit} style={{ maxWidth: 300 }} className="flex-grow-1">
      <Form.Control
        type="search"
        value={text}
        placeholder={placeholder}
        aria-label="Search"
        maxLength={200}
        autoFocus={autoFocus}
        onChange={(event) => setText(event.target.value)}
      />
    </Form>
  );
}
