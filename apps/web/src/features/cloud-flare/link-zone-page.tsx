import { useState, type FormEvent } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import Form from 'react-bootstrap/Form';
import { LinkZoneInputSchema, type Domain } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError } from '../../lib/api-error.ts';
import { cloudFlarePaths, useLinkZone } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';

function LinkZoneForm({ domain }: { domain: Domain }) {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const toasts = useToasts();
  const link = useLinkZone(domain._id);
  const [cloudZoneId, setCloudZoneId] = useState(searchParams.get('cloudZoneId') ?? '');
  const [error, setError] = useState<string | undefined>();

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = LinkZoneInputSchema.safeParse({ cloudZoneId });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    try {
      await link.mutateAsync(parsed.data.cloudZoneId);
    } catch (err) {
      // A failed check names itself on the field; anything else (Cloudflare unreachable, …) is the Error dialog.
      if (err instanceof ApiError && err.fields?.cloudZoneId) setError(err.fields.cloudZoneId);
      else void dialogs.apiError(err);
      return;
    }
    toasts.success('Zone linked successfully');
    await navigate(cloudFlarePaths.cloudTab(domain._id));
  };

  return (
    <Form noValidate onSubmit={(event) => void handleSubmit(event)}>
      <p>
        Links an existing zone of the Cloudflare account of {domain.cloud?.email} to{' '}
        <strong>{domain.domainNameUnicode}</strong>. The zone must be in that account and carry the domain&apos;s name.
        {domain.cloudZoneId && (
          <>
            {' '}
            It replaces the zone now linked, <code>{domain.cloudZoneId}</code> (which stays at Cloudflare).
          </>
        )}
      </p>
      <Form.Group className="mb-3" controlId="field-cloudZoneId">
        <Form.Label>
          Cloud Zone Id
          <span className="text-danger ms-1" aria-hidden="true">
            *
          </span>
        </Form.Label>
        <Form.Control
          value={cloudZoneId}
          onChange={(event) => setCloudZoneId(event.target.value)}
          isInvalid={Boolean(error)}
          required
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          autoFocus
          className="font-monospace"
          placeholder="32 hexadecimal characters, from the zone's Overview page in Cloudflare"
        />
        {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
      </Form.Group>
      <div className="d-flex gap-2">
        <SubmitButton pending={link.isPending}>Link Zone</SubmitButton>
        <LinkButton to={cloudFlarePaths.cloudTab(domain._id)} variant="outline-secondary">
          Cancel
        </LinkButton>
      </div>
    </Form>
  );
}

export function LinkZonePage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Link Zone" needs="cloud">
      {(domain) => <LinkZoneForm domain={domain} />}
    </CloudFlareSubpage>
  );
}
