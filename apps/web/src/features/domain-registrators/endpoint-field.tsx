import { useId, useState } from 'react';
import Form from 'react-bootstrap/Form';
import { useController, useFormContext } from 'react-hook-form';
import { NAMECHEAP_ENDPOINTS } from '@fleetdesk/contract';
import { useFieldError } from '../../components/form-fields.tsx';
import type { DomainRegistratorFormValues } from './domain-registrators-api.ts';

const CUSTOM = 'custom';
const isPreset = (url: string) => NAMECHEAP_ENDPOINTS.some((e) => e.value === url);

/** The Namecheap sandbox and production addresses, or a custom URL typed in. */
export function EndpointField({ disabled }: { disabled?: boolean }) {
  const { control } = useFormContext<DomainRegistratorFormValues>();
  const { field } = useController({ name: 'credentials.endpointUrl', control });
  const error = useFieldError<DomainRegistratorFormValues>('credentials.endpointUrl');
  const value: string = field.value ?? '';
  const [custom, setCustom] = useState(() => value !== '' && !isPreset(value));
  const selectId = useId();
  const inputId = useId();

  const handleSelect = (choice: string) => {
    if (choice === CUSTOM) {
      setCustom(true);
      if (isPreset(value)) field.onChange('');
    } else {
      setCustom(false);
      field.onChange(choice);
    }
  };

  return (
    <Form.Group className="mb-3">
      <Form.Label htmlFor={selectId}>
        Endpoint URL
        <span className="text-danger ms-1" aria-hidden="true">
          *
        </span>
      </Form.Label>
      <Form.Select
        id={selectId}
        value={custom ? CUSTOM : value}
        onChange={(event) => handleSelect(event.target.value)}
        isInvalid={Boolean(error) && !custom}
        disabled={disabled}
      >
        {!custom && !value && <option value="">Select an endpoint</option>}
        {NAMECHEAP_ENDPOINTS.map((e) => (
          <option key={e.value} value={e.value}>
            {e.label} ({e.value})
          </option>
        ))}
        <option value={CUSTOM}>Custom URL…</option>
      </Form.Select>
      {custom && (
        <Form.Control
          id={inputId}
          className="mt-2"
          type="url"
          aria-label="Custom endpoint URL"
          placeholder="https://…/xml.response"
          value={value}
          onChange={(event) => field.onChange(event.target.value)}
          onBlur={field.onBlur}
          isInvalid={Boolean(error)}
          disabled={disabled}
          maxLength={500}
        />
      )}
      {error && <div className="invalid-feedback d-block">{error}</div>}
    </Form.Group>
  );
}
