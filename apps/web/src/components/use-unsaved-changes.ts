import { useCallback, useEffect, useRef } from 'react';
import { useBlocker, type BlockerFunction } from 'react-router';
import { useDialogs } from './dialog-host.tsx';

export const UNSAVED_CHANGES_TITLE = 'Unsaved changes';
export const UNSAVED_CHANGES_MESSAGE = 'You have unsaved changes. Leave and lose them?';

export interface UnsavedChangesOptions {
  /**
   * Also ask when only the query changes. Off by default: a form's tabs live in `?tab=`; on for screens whose
   * query says what is being edited (the content-file editor's `?file=`).
   */
  query?: boolean;
}

/**
 * Asks before unsaved changes are lost: a route change (links, Back, the palette) goes through the router's
 * blocker and a confirm; a reload or closing the tab gets the browser's own prompt (`beforeunload`).
 * `confirmLeave()` asks the same question for a leave that is not a navigation (a Close button).
 */
export function useUnsavedChanges(dirty: boolean, options: UnsavedChangesOptions = {}) {
  const dialogs = useDialogs();
  const query = options.query ?? false;
  const shouldBlock = useCallback<BlockerFunction>(
    ({ currentLocation, nextLocation }) =>
      dirty &&
      (currentLocation.pathname !== nextLocation.pathname || (query && currentLocation.search !== nextLocation.search)),
    [dirty, query],
  );
  const blocker = useBlocker(shouldBlock);
  const asking = useRef(false);

  useEffect(() => {
    if (blocker.state !== 'blocked' || asking.current) return;
    asking.current = true;
    void dialogs
      .confirm(UNSAVED_CHANGES_MESSAGE, { title: UNSAVED_CHANGES_TITLE, confirmLabel: 'Leave', cancelLabel: 'Stay' })
      .then((leave) => {
        asking.current = false;
        if (leave) blocker.proceed();
        else blocker.reset();
      });
  }, [blocker, dialogs]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers need returnValue set to show their prompt.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const confirmLeave = useCallback(
    async () =>
      !dirty ||
      dialogs.confirm(UNSAVED_CHANGES_MESSAGE, {
        title: UNSAVED_CHANGES_TITLE,
        confirmLabel: 'Leave',
        cancelLabel: 'Stay',
      }),
    [dirty, dialogs],
  );
  return { confirmLeave };
}
