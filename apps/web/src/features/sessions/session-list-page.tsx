import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import type { Session } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import type { Column } from '../../components/list-table.tsx';
import { ListView } from '../../components/list-view.tsx';
import { sessionsApi, useEndSession } from './sessions-api.ts';

/** Every signed-in session, for holders of cnv:users; ending one signs that browser out on its next request. */
export function SessionListPage() {
  const end = useEndSession();
  const dialogs = useDialogs();
  const handleEnd = async (s: Session) => {
    const ok = await dialogs.confirm(`End the session of ${s.username} (${s.browser}, ${s.ip ?? 'unknown address'})?`, {
      confirmLabel: 'End session',
      confirmVariant: 'danger',
    });
    if (ok) end.mutate(s._id, { onError: (e) => void dialogs.apiError(e) });
  };
  const columns: Column<Session>[] = [
    { header: 'Username', render: (s) => s.username },
    {
      header: 'Browser',
      render: (s) => (
        <span title={s.userAgent ?? undefined}>
          {s.browser}
          {s.current && (
            <Badge bg="info" className="ms-2">
              This session
            </Badge>
          )}
          {s.twoFactorSetup && (
            <Badge bg="warning" text="dark" className="ms-2">
              Two-factor setup
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
  return <ListView title="Sessions" useList={sessionsApi.useList} columns={columns} emptyText="No sessions" />;
}
