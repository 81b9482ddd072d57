import type { ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Button from 'react-bootstrap/Button';
import { API_TOKEN_STATUS_LABELS, RULE_LABELS, type ApiToken, type Rule } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { api } from '../../lib/api-client.ts';
import { errorMessage, type ApiError } from '../../lib/api-error.ts';
import { StatusBadge } from '../../components/status-badge.tsx';

const ruleList = (rules: readonly string[]) =>
  rules.map((r) => RULE_LABELS[r as Rule] ?? r).join(', ') || 'none (its owner lost them)';

/**
 * A user's personal API tokens as an administrator sees them (never their values), each with a revoke. Only for
 * holders of every rule of the user; a token of theirs ends at once when revoked here (audited).
 */
export function UserTokensField({ userId }: { userId: string }) {
  const base = `/api/users/${encodeURIComponent(userId)}/tokens`;
  const key = ['users', 'tokens', userId];
  const queryClient = useQueryClient();
  const dialogs = useDialogs();
  const tokens = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.get<ApiToken[]>(base, undefined, signal),
  });
  const revoke = useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.delete(`${base}/${encodeURIComponent(id)}`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
    onError: (e) => void dialogs.apiError(e),
  });
  const handleRevoke = async (t: ApiToken) => {
    const ok = await dialogs.confirm(`Revoke the token “${t.name}”? Scripts using it stop working at once.`, {
      confirmLabel: 'Revoke',
      confirmVariant: 'danger',
    });
    if (ok) revoke.mutate(t._id);
  };

  let body: ReactNode;
  if (tokens.isPending) body = '…';
  else if (tokens.isError) body = <span className="text-body-secondary">{errorMessage(tokens.error)}</span>;
  else if (tokens.data.length === 0) body = 'No API token.';
  else
    body = (
      <ul className="list-unstyled mb-0" aria-label="API tokens">
        {tokens.data.map((t) => (
          <li key={t._id} className="d-flex flex-wrap gap-2 align-items-center mb-1">
            <span className="fw-semibold text-break">{t.name}</span>
            <StatusBadge status={t.status} label={API_TOKEN_STATUS_LABELS[t.status]} />
            <span className="small text-body-secondary text-break">
              {ruleList(t.effectiveRules)}; expires {t.expiresAt ? <DateTime value={t.expiresAt} /> : 'never'}; last
              used {t.lastUsedAt ? <DateTime value={t.lastUsedAt} /> : 'never'}
              {t.lastUsedIp ? ` from ${t.lastUsedIp}` : ''}
            </span>
            <Button
              size="sm"
              variant="outline-danger"
              onClick={() => void handleRevoke(t)}
              disabled={revoke.isPending}
              aria-label={`Revoke token ${t.name}`}
            >
              Revoke
            </Button>
          </li>
        ))}
      </ul>
    );
  return (
    <div className="mb-3">
      <div className="form-label">API Tokens</div>
      <div className="form-control-plaintext py-0">{body}</div>
    </div>
  );
}
