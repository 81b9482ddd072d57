import type { ReactNode } from 'react';
import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import { CLOUD_FLARE_MESSAGES, type Domain } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { cloudFlarePaths, useDomain } from './cloud-flare-api.ts';

export interface CloudFlareSubpageProps {
  id: string;
  title: string;
  /** What the action needs before it can run: the server refuses the same way, this only says so up front. */
  needs: 'cloud' | 'zone';
  /** Wider pages (the DNS and redirect editors). */
  wide?: boolean;
  children: (domain: Domain) => ReactNode;
}

/** The frame of a domain's cloud action: title, the domain and its cloud, a link back to the Cloud tab. */
export function CloudFlareSubpage({ id, title, needs, wide, children }: CloudFlareSubpageProps) {
  const query = useDomain(id);
  useForbiddenDialog(query.error);
  const domain = query.data;

  let body: ReactNode;
  if (query.isPending) body = <LoadingSpinner />;
  else if (query.isError) {
    body = <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  } else if (!query.data.cloudId) {
    body = (
      <Alert variant="warning" data-testid="cloud-flare-refusal">
        {CLOUD_FLARE_MESSAGES.noCloud}.{' '}
        <Link className="alert-link" to={cloudFlarePaths.cloudTab(id)}>
          Open the Cloud tab
        </Link>
      </Alert>
    );
  } else if (needs === 'zone' && !query.data.cloudZoneId) {
    body = (
      <Alert variant="warning" data-testid="cloud-flare-refusal">
        <p className="mb-2">{CLOUD_FLARE_MESSAGES.noZone}.</p>
        <div className="d-flex flex-wrap gap-2">
          <LinkButton to={cloudFlarePaths.action(id, 'create-zone')} size="sm">
            Create Zone
          </LinkButton>
          <LinkButton to={cloudFlarePaths.action(id, 'link-zone')} size="sm" variant="outline-primary">
            Link Zone
          </LinkButton>
        </div>
      </Alert>
    );
  } else body = children(query.data);

  return (
    <section style={{ maxWidth: wide ? undefined : 880 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">{title}</h1>
        <LinkButton to={cloudFlarePaths.cloudTab(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      {domain && (
        <p className="text-body-secondary mb-3" data-testid="cloud-flare-domain">
          Domain № {domain.domainNo}: <strong className="text-body">{domain.domainNameUnicode}</strong>
          {domain.cloud && <> · cloud {domain.cloud.email}</>}
          {domain.cloudZoneId && (
            <>
              {' '}
              · zone <code>{domain.cloudZoneId}</code>
            </>
          )}
        </p>
      )}
      {body}
    </section>
  );
}
