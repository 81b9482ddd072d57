import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied (e.g. no permission): fall back to the selection below.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand('copy');
  } finally {
    area.remove();
  }
}

export interface CopyButtonProps {
  text: string;
  label?: string;
  size?: 'sm' | 'lg';
  variant?: string;
  /** Names what is copied when the visible label is only "Copy" (e.g. "Copy TXT value"). */
  ariaLabel?: string;
}

/** Copies `text` to the clipboard; says "Copied" for two seconds (or "Copy failed"). */
export function CopyButton({ text, label = 'Copy', size, variant = 'outline-secondary', ariaLabel }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  const handleClick = async () => setState((await copyText(text)) ? 'copied' : 'failed');
  return (
    <Button
      type="button"
      size={size}
      variant={variant}
      onClick={() => void handleClick()}
      aria-live="polite"
      aria-label={state === 'idle' ? ariaLabel : undefined}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </Button>
  );
}
