import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Button from 'react-bootstrap/Button';
import type { UserTwoFactor } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

/** A user's two-factor sign-in as an administrator sees it (on or off, never the secret), with the reset. */
export function UserTwoFactorField({ userId }: { userId: string }) {
  const key = ['users', 'two-factor', userId];
  const queryClient = useQueryClient();
  const dialogs = useDialogs();
  const status = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      api.get<UserTwoFactor>(`/api/users/${encodeURIComponent(userId)}/two-factor`, undefined, signal),
  });
  const reset = useMutation<unknown, ApiError, void>({
    mutationFn: () => api.post(`/api/users/${encodeURIComponent(userId)}/two-factor/reset`),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: key });
      void dialogs.success('Two-factor sign-in was reset. The user’s sessions have ended.');
    },
    onError: (e) => void dialogs.apiError(e),
  });
  const handleReset = async () => {
    const ok = await dialogs.confirm(
      'Reset this user’s two-factor sign-in? Their sessions end, and they set it up again at their next sign-in.',
      { confirmLabel: 'Reset', confirmVariant: 'danger' },
    );
    if (ok) reset.mutate();
  };
  const value = status.isPending ? (
    '…'
  ) : status.isError ? (
    'Unknown'
  ) : status.data.enabled ? (
    <span className="d-inline-flex flex-wrap gap-2 align-items-center">
      <span>
        On since <DateTime value={status.data.enabledAt} />
      </span>
      <Button size="sm" variant="outline-danger" onClick={() => void handleReset()} disabled={reset.isPending}>
        Reset two-factor
      </Button>
    </span>
  ) : (
    'Off'
  );
  return <StaticField label="Two-factor Sign-in" value={value} />;
}
