import { Link, type LinkProps } from 'react-router';

export type LinkButtonProps = LinkProps & { variant?: string; size?: 'sm' | 'lg' };

/** A router link styled as a Bootstrap button. */
export function LinkButton({ variant = 'primary', size, className, ...props }: LinkButtonProps) {
  const classes = ['btn', `btn-${variant}`, size && `btn-${size}`, className].filter(Boolean).join(' ');
  return <Link className={classes} {...props} />;
}
