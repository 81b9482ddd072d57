import { useState, type FocusEvent, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Spinner from 'react-bootstrap/Spinner';
import { get, useController, useFormContext, type FieldValues, type Path, type PathValue } from 'react-hook-form';
import { SECRET_MASK } from '@fleetdesk/contract';
import { api } from '../lib/api-client.ts';
import { useDialogs } from './dialog-host.tsx';
import { useFieldError } from './form-fields.tsx';

/** Where the stored value of a secret can be read back: POST /api/<resource>/<id>/reveal { field }. */
export interface SecretReveal {
  /** The API resource, e.g. 'clouds'. */
  resource: string;
  id: string;
  /** The API's field name; defaults to the form field's name. */
  field?: string;
}

export interface SecretFieldProps<T extends FieldValues> {
  /** The form field; it holds SECRET_MASK for a stored value, '' for none, null to clear. */
  name: Path<T>;
  label: string;
  help?: ReactNode;
  disabled?: boolean;
  className?: string;
  maxLength?: number;
  placeholder?: string;
  /** Defaults to "new-password", so the browser does not fill in the operator's own login. */
  autoComplete?: string;
  /** Set on edit pages: the eye button then reads the stored value through the audited reveal call. */
  reveal?: SecretReveal;
}

/** The audited reveal call of one stored secret. */
export async function revealSecret({ resource, id, field }: SecretReveal & { field: string }): Promise<string | null> {
  const result = await api.post<{ field: string; value: string | null }>(
    `/api/${resource}/${encodeURIComponent(id)}/reveal`,
    { field },
  );
  return result.value;
}

function EyeIcon({ open }: { open: boolean }) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      width="16"
      height="16"
      fill="currentColor"
      viewBox="0 0 16 16"
      aria-hidden="true"
    >
      {open ? (
        <>
          <path d="M16 8s-3-5.5-8-5.5S0 8 0 8s3 5.5 8 5.5S16 8 16 8M1.173 8a13 13 0 0 1 1.66-2.043C4.12 4.668 5.88 3.5 8 3.5s3.879 1.168 5.168 2.457A13 13 0 0 1 14.828 8q-.086.13-.195.288c-.335.48-.83 1.12-1.465 1.755C11.879 11.332 10.119 12.5 8 12.5s-3.879-1.168-5.168-2.457A13 13 0 0 1 1.172 8z" />
          <path d="M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5M4.5 8a3.5 3.5 0 1 1 7 0 3.5 3.5 0 0 1-7 0" />
        </>
      ) : (
        <>
          <path d="M13.359 11.238C15.06 9.72 16 8 16 8s-3-5.5-8-5.5a7 7 0 0 0-2.79.588l.77.771A6 6 0 0 1 8 3.5c2.12 0 3.879 1.168 5.168 2.457A13 13 0 0 1 14.828 8q-.086.13-.195.288c-.335.48-.83 1.12-1.465 1.755q-.247.248-.517.486z" />
          <path d="M11.297 9.176a3.5 3.5 0 0 0-4.474-4.474l.823.823a2.5 2.5 0 0 1 2.829 2.829zm-2.943 1.299.822.822a3.5 3.5 0 0 1-4.474-4.474l.823.823a2.5 2.5 0 0 0 2.829 2.829" />
          <path d="M3.35 5.47q-.27.24-.518.487A13 13 0 0 0 1.172 8l.195.288c.335.48.83 1.12 1.465 1.755C4.121 11.332 5.881 12.5 8 12.5c.716 0 1.39-.133 2.02-.36l.77.772A7 7 0 0 1 8 13.5C3 13.5 0 8 0 8s.939-1.721 2.641-3.238l.708.709zm10.296 8.884-12-12 .708-.708 12 12z" />
        </>
      )}
    </svg>
  );
}

/**
 * A password-like field for a stored secret. The API answers the mask for a stored value; the form keeps the mask
 * (which the API reads as "keep"), and the eye button shows what is typed or, on edit pages (`reveal`), fetches the
 * stored value through the audited reveal call and shows it without changing the form's value (an unedited revealed
 * secret is still sent as "keep"). When a value is stored, Clear sets the field to null (cleared on save).
 */
export function SecretField<T extends FieldValues>({
  name,
  label,
  help,
  disabled,
  className,
  maxLength,
  placeholder,
  autoComplete = 'new-password',
  reveal,
}: SecretFieldProps<T>) {
  const dialogs = useDialogs();
  const { control, formState } = useFormContext<T>();
  const { field } = useController({ name, control });
  const error = useFieldError<T>(name);
  const [shown, setShown] = useState(false);
  const [revealing, setRevealing] = useState(false);
  // The revealed value is only shown: the form keeps the mask (keep) until the operator types a new value.
  const [revealed, setRevealed] = useState<string | null | undefined>(undefined);
  // A reset (e.g. FormView's after a save) hides the value again and forgets what was revealed.
  const defaults = formState.defaultValues;
  const [seenDefaults, setSeenDefaults] = useState(defaults);
  if (seenDefaults !== defaults) {
    setSeenDefaults(defaults);
    setShown(false);
    setRevealed(undefined);
  }
  const value = field.value as string | null | undefined;
  const stored = get(formState.defaultValues, name) === SECRET_MASK;
  const cleared = value === null && stored;
  const inputId = `field-${name}`;

  const handleToggle = async () => {
    if (shown) {
      setShown(false);
      return;
    }
    if (reveal && value === SECRET_MASK && revealed === undefined) {
      setRevealing(true);
      try {
        setRevealed(await revealSecret({ ...reveal, field: reveal.field ?? name }));
      } catch (err) {
        void dialogs.apiError(err);
        return;
      } finally {
        setRevealing(false);
      }
    }
    setShown(true);
  };

  const handleFocus = (event: FocusEvent<HTMLInputElement>) => {
    // The mask (or the revealed value) stands for the stored value: typing replaces it whole.
    if (value === SECRET_MASK) event.currentTarget.select();
  };

  return (
    <Form.Group className={className ?? 'mb-3'}>
      <Form.Label htmlFor={inputId}>{label}</Form.Label>
      <InputGroup hasValidation>
        <Form.Control
          id={inputId}
          type={shown ? 'text' : 'password'}
          name={field.name}
          ref={field.ref}
          value={shown && value === SECRET_MASK && revealed !== undefined ? (revealed ?? '') : (value ?? '')}
          onChange={(event) => {
            setRevealed(undefined);
            field.onChange(event.target.value as PathValue<T, Path<T>>);
          }}
          onBlur={field.onBlur}
          onFocus={handleFocus}
          isInvalid={Boolean(error)}
          disabled={disabled}
          maxLength={maxLength}
          placeholder={cleared ? 'Cleared when you save' : placeholder}
          autoComplete={autoComplete}
          spellCheck={false}
        />
        <Button
          variant="outline-secondary"
          onClick={() => void handleToggle()}
          disabled={disabled || revealing}
          aria-label={shown ? `Hide ${label}` : `Show ${label}`}
          title={shown ? 'Hide' : 'Show'}
          aria-pressed={shown}
        >
          {revealing ? (
            <Spinner as="span" animation="border" size="sm" aria-hidden="true" />
          ) : (
            <EyeIcon open={!shown} />
          )}
        </Button>
        {stored && (
          <Button
            variant="outline-secondary"
            onClick={() => {
              setRevealed(undefined);
              field.onChange(null as PathValue<T, Path<T>>);
            }}
            disabled={disabled || cleared}
            aria-label={`Clear ${label}`}
          >
            Clear
          </Button>
        )}
        {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
      </InputGroup>
      {help && !error && <Form.Text muted>{help}</Form.Text>}
    </Form.Group>
  );
}

/** A secret as a form value: the mask stays (it means "keep"), none becomes ''. */
export function secretFormValue(value: string | null | undefined): string {
  return value ?? '';
}
