import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import Form from 'react-bootstrap/Form';

/** One list filter kept in the URL (?name=value); a change starts again at page 1. */
export function useUrlFilter(name: string): [string, (value: string) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const value = searchParams.get(name) ?? '';
  const set = useCallback(
    (next: string) =>
      setSearchParams((prev) => {
        const params = new URLSearchParams(prev);
        if (next) params.set(name, next);
        else params.delete(name);
        params.delete('page');
        return params;
      }),
    [name, setSearchParams],
  );
  return [value, set];
}

/** A select over a list filter's values, its first option "all". */
export function SelectFilter(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  allLabel: string;
  options: readonly { value: string; label: string }[];
}) {
  return (
    <div className="d-flex flex-wrap gap-2 mb-3">
      <Form.Select
        aria-label={props.label}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        style={{ maxWidth: 240 }}
      >
        <option value="">{props.allLabel}</option>
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Form.Select>
    </div>
  );
}
