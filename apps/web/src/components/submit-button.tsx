import type { ComponentProps } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';

export type SubmitButtonProps = ComponentProps<typeof Button> & { pending?: boolean };

/** Disabled with a spinner while its submission runs. */
export function SubmitButton({
  pending = false,
  disabled,
  children,
  variant = 'primary',
  ...props
}: SubmitButtonProps) {
  return (
    <Button type="submit" variant={variant} disabled={pending || disabled} aria-busy={pending} {...props}>
      {pending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
      {children}
    </Button>
  );
}
