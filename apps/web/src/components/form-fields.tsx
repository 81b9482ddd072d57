import type { ReactNode } from 'react';
import Form from 'react-bootstrap/Form';
import { get, useFormContext, type FieldValues, type Path, type RegisterOptions } from 'react-hook-form';

interface FieldBaseProps<T extends FieldValues> {
  name: Path<T>;
  label: ReactNode;
  required?: boolean;
  help?: ReactNode;
  disabled?: boolean;
  className?: string;
}

/** The error message react-hook-form holds for a (possibly nested) field. */
export function useFieldError<T extends FieldValues>(name: Path<T>): string | undefined {
  const {
    formState: { errors },
  } = useFormContext<T>();
  const error = get(errors, name) as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : undefined;
}

function FieldShell({
  name,
  label,
  required,
  help,
  error,
  className,
  children,
}: {
  name: string;
  label: ReactNode;
  required?: boolean;
  help?: ReactNode;
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <Form.Group className={className ?? 'mb-3'} controlId={`field-${name}`}>
      <Form.Label>
        {label}
        {required && (
          <span className="text-danger ms-1" aria-hidden="true">
            *
          </span>
        )}
      </Form.Label>
      {children}
      {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
      {help && !error && <Form.Text muted>{help}</Form.Text>}
    </Form.Group>
  );
}

export interface TextFieldProps<T extends FieldValues> extends FieldBaseProps<T> {
  type?: 'text' | 'email' | 'password' | 'number' | 'url';
  /** 'number' sends a number, or null when the box is empty. */
  valueAs?: 'string' | 'number';
  placeholder?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number;
  readOnly?: boolean;
}

export function TextField<T extends FieldValues>({
  name,
  label,
  required,
  help,
  disabled,
  className,
  type = 'text',
  valueAs = type === 'number' ? 'number' : 'string',
  ...inputProps
}: TextFieldProps<T>) {
  const { register } = useFormContext<T>();
  const error = useFieldError<T>(name);
  const options: RegisterOptions<T, Path<T>> = valueAs === 'number'
    ? { setValueAs: (value: unknown) => (value === '' || value === null || value === undefined ? null : Number(value)) }
    : {};
  return (
    <FieldShell name={name} label={label} required={required} help={help} error={error} className={className}>
      <Form.Control
        type={type}
        isInvalid={Boolean(error)}
        required={required}
        disabled={disabled}
        {...inputProps}
        {...register(name, options)}
      />
    </FieldShell>
  );
}

export interface TextAreaFieldProps<T extends FieldValues> extends FieldBaseProps<T> {
  rows?: number;
  placeholder?: string;
  maxLength?: number;
  /** Classes of the textarea itself, e.g. 'font-monospace' for code. */
  inputClassName?: string;
  spellCheck?: boolean;
}

export function TextAreaField<T extends FieldValues>({
  name,
  label,
  required,
  help,
  disabled,
  className,
  rows = 4,
  inputClassName,
  ...inputProps
}: TextAreaFieldProps<T>) {
  const { register } = useFormContext<T>();
  const error = useFieldError<T>(name);
  return (
    <FieldShell name={name} label={label} required={required} help={help} error={error} className={className}>
      <Form.Control
        as="textarea"
        rows={rows}
        className={inputClassName}
        isInvalid={Boolean(error)}
        required={required}
        disabled={disabled}
        {...inputProps}
        {...register(name)}
      />
    </FieldShell>
  );
}

export interface SelectFieldProps<T extends FieldValues> extends FieldBaseProps<T> {
  options: readonly { value: string; label: string }[];
  /** An empty first option, e.g. "Select…". */
  emptyOption?: string;
}

export function SelectField<T extends FieldValues>({
  name,
  label,
  required,
  help,
  disabled,
  className,
  options,
  emptyOption,
}: SelectFieldProps<T>) {
  const { register } = useFormContext<T>();
  const error = useFieldError<T>(name);
  return (
    <FieldShell name={name} label={label} required={required} help={help} error={error} className={className}>
      <Form.Select isInvalid={Boolean(error)} required={required} disabled={disabled} {...register(name)}>
        {emptyOption !== undefined && <option value="">{emptyOption}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </Form.Select>
    </FieldShell>
  );
}

export function CheckField<T extends FieldValues>({ name, label, help, disabled, className }: FieldBaseProps<T>) {
  const { register } = useFormContext<T>();
  const error = useFieldError<T>(name);
  return (
    <Form.Group className={className ?? 'mb-3'} controlId={`field-${name}`}>
      <Form.Check type="switch" label={label} isInvalid={Boolean(error)} disabled={disabled} {...register(name)} />
      {error && <div className="invalid-feedback d-block">{error}</div>}
      {help && !error && <Form.Text muted>{help}</Form.Text>}
    </Form.Group>
  );
}

/** A read-only value shown like a field (e.g. the № of an item). */
export function StaticField({ label, value, className }: { label: ReactNode; value: ReactNode; className?: string }) {
  return (
    <div className={className ?? 'mb-3'}>
      <div className="form-label">{label}</div>
      <div className="form-control-plaintext py-0">{value}</div>
    </div>
  );
}
