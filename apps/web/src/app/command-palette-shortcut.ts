import { useEffect } from 'react';

/**
 * Ctrl+K / ⌘K anywhere opens the palette (while signed in). Kept apart from the palette, which loads when first
 * opened (decision 048).
 */
export function useCommandPaletteShortcut(enabled: boolean, open: () => void) {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        open();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled, open]);
}
