import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import type { Session } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { ListTable, type Column } from '../../components/list-table.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { useEndOwnSession, useOwnSessions } from './profile-api.ts';

/** One's own signed-in browsers; ending one signs it out on its next request. */
export function SessionsPanel() {
  const sessions = useOwnSessions();
  const end = useEndOwnSession();
  const dialogs = useDialogs();

  const handleEnd = async (s: Session) => {
    const ok = await dialogs.confirm(`End the session of ${s.browser} at ${s.ip ?? 'an unknown address'}?`, {
      confirmLabel: 'End session',
      confirmVariant: 'danger',
    });
    if (ok) end.mutate(s._id, { onError: (e) => void dialogs.apiError(e) });
  };

  const columns: Column<Session>[] = [
    {
      header: 'Browser',
      primary: true,
      render: (s) => (
        <span title={s.userAgent ?? undefined}>
          {s.browser}
          {s.current && (
            <Badge bg="info" className="ms-2">
              This session
            </Badge>
          )}
        </span>
      ),
    },
    { header: 'Address', render: (s) => s.ip ?? '—' },
    { header: 'Signed In', render: (s) => <DateTime value={s.createdAt} /> },
    { header: 'Last Used', render: (s) => <DateTime value={s.lastUsedAt} /> },
    {
      header: '',
      key: 'actions',
      render: (s) =>
        s.current ? null : (
          <Button size="sm" variant="outline-danger" onClick={() => void handleEnd(s)}>
            End
          </Button>
        ),
    },
  ];

  if (sessions.isPending) return <LoadingSpinner />;
  if (sessions.isError) {
    return <ErrorBox message={errorMessage(sessions.error)} onRefresh={() => void sessions.refetch()} />;
  }
  return (
    <>
      <div className="d-flex justify-content-between align-items-center mb-2">
        <p className="mb-0">Where you are signed in. Ending a session signs that browser out at once.</p>
        <RefreshButton onRefresh={() => void sessions.refetch()} pending={sessions.isFetching} />
      </div>
      <ListTable items={sessions.data} columns={columns} page={1} label="Your sessions" emptyText="No sessions" />
    </>
  );
}
