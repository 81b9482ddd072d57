import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import type { IdentityLink, UserIdentities, UserIdentity } from '@fleetdesk/contract';
import { CopyButton } from '../../components/copy-button.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

/**
 * A user's single sign-on as an administrator manages it: the linked provider accounts (unlink), a one-time
 * link invitation (its address shown once), or a link by the provider's subject.
 */
export function UserIdentitiesField({ userId }: { userId: string }) {
  const base = `/api/users/${encodeURIComponent(userId)}`;
  const key = ['users', 'identities', userId];
  const queryClient = useQueryClient();
  const dialogs = useDialogs();
  const [created, setCreated] = useState<IdentityLink | null>(null);
  const status = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.get<UserIdentities>(`${base}/identities`, undefined, signal),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: key });
  const onError = (e: ApiError) => void dialogs.apiError(e);
  const invite = useMutation<IdentityLink, ApiError, void>({
    mutationFn: () => api.post<IdentityLink>(`${base}/identity-link`),
    onSuccess: (link) => {
      setCreated(link);
      refresh();
    },
    onError,
  });
  const cancel = useMutation<unknown, ApiError, void>({
    mutationFn: () => api.delete(`${base}/identity-link`),
    onSuccess: () => {
      setCreated(null);
      refresh();
    },
    onError,
  });
  const linkSubject = useMutation<unknown, ApiError, string>({
    mutationFn: (subject) => api.post(`${base}/identities`, { subject }),
    onSuccess: () => {
      refresh();
      void dialogs.success('The account is linked: single sign-on with it now signs in as this user.');
    },
    onError,
  });
  const unlink = useMutation<unknown, ApiError, string>({
    mutationFn: (identityId) => api.delete(`${base}/identities/${encodeURIComponent(identityId)}`),
    onSuccess: refresh,
    onError,
  });

  const handleUnlink = async (identity: UserIdentity) => {
    const ok = await dialogs.confirm(
      `Unlink the account “${identity.subject}”? Single sign-on with it no longer signs in as this user.`,
      { confirmLabel: 'Unlink', confirmVariant: 'danger' },
    );
    if (ok) unlink.mutate(identity._id);
  };
  const handleSubject = async () => {
    const subject = await dialogs.prompt(
      'The account’s subject (the “sub” claim) as the provider’s admin console shows it. The provider’s email or user name is not enough.',
      { title: 'Link by subject', label: 'Subject', confirmLabel: 'Link' },
    );
    if (subject?.trim()) linkSubject.mutate(subject.trim());
  };

  let body: ReactNode;
  if (status.isPending) body = '…';
  else if (status.isError) body = 'Unknown';
  else if (!status.data.ssoEnabled)
    body = <span className="text-body-secondary">Single sign-on is not configured.</span>;
  else {
    const { identities, pendingLink, providerName } = status.data;
    body = (
      <>
        {identities.length === 0 ? (
          <div>No linked account.</div>
        ) : (
          <ul className="list-unstyled mb-2" aria-label="Linked accounts">
            {identities.map((identity) => (
              <li key={identity._id} className="d-flex flex-wrap gap-2 align-items-center mb-1">
                <span className="text-break">
                  <code>{identity.subject}</code> at <span className="text-break">{identity.issuer}</span>
                </span>
                <span className="small text-body-secondary">
                  linked <DateTime value={identity.dateCreated} />, last sign-in{' '}
                  {identity.dateLastLogin ? <DateTime value={identity.dateLastLogin} /> : 'never'}
                </span>
                <Button
                  size="sm"
                  variant="outline-danger"
                  onClick={() => void handleUnlink(identity)}
                  disabled={unlink.isPending}
                  aria-label={`Unlink ${identity.subject}`}
                >
                  Unlink
                </Button>
              </li>
            ))}
          </ul>
        )}
        {created ? (
          <Alert variant="success" className="mt-2 mb-2" style={{ maxWidth: 720 }}>
            <p className="mb-2">
              Send this address to the user. Their next sign-in with {providerName} through it links that account to
              this user. It works once, until <DateTime value={created.dateExpires} />, and is not shown again.
            </p>
            <div className="d-flex flex-wrap gap-2 align-items-center mb-2">
              <code className="text-break" data-testid="identity-link-url">
                {created.url}
              </code>
              <CopyButton text={created.url} size="sm" label="Copy address" />
            </div>
            <Button size="sm" onClick={() => setCreated(null)}>
              Done
            </Button>
          </Alert>
        ) : (
          pendingLink && (
            <div className="mt-1 mb-2 d-flex flex-wrap gap-2 align-items-center">
              <span>
                A link invitation is pending until <DateTime value={pendingLink.dateExpires} />.
              </span>
              <Button size="sm" variant="outline-secondary" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
                Cancel invitation
              </Button>
            </div>
          )
        )}
        <div className="d-flex flex-wrap gap-2 mt-1">
          <Button size="sm" variant="outline-primary" onClick={() => invite.mutate()} disabled={invite.isPending}>
            {pendingLink ? 'New link invitation' : 'Create link invitation'}
          </Button>
          <Button size="sm" variant="outline-secondary" onClick={() => void handleSubject()}>
            Link by subject
          </Button>
        </div>
      </>
    );
  }
  return (
    <div className="mb-3">
      <div className="form-label">Single Sign-on</div>
      <div className="form-control-plaintext py-0">{body}</div>
    </div>
  );
}
