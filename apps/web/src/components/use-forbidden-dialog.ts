import { useEffect, useRef } from 'react';
import { ApiError } from '../lib/api-error.ts';
import { useDialogs } from './dialog-host.tsx';

/**
 * A screen the user has no rule for answers with the Error dialog (the server's message names the area),
 * besides its usual failure box. Once per failed load, even when effects run twice in development.
 */
export function useForbiddenDialog(error: unknown) {
  const dialogs = useDialogs();
  const shown = useRef<unknown>(null);
  useEffect(() => {
    if (!(error instanceof ApiError) || error.status !== 403 || shown.current === error) return;
    shown.current = error;
    void dialogs.apiError(error);
  }, [error, dialogs]);
}
