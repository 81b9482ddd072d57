import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Tab from 'react-bootstrap/Tab';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { VerifiedBadge } from './hosts-pages.tsx';
import { YandexCode } from './yandex-labels.tsx';
import { isYandexError, useAddHost, useHost, webmasterPaths } from './yandex-webmaster-api.ts';
import { ImportantUrlsTab, RecrawlTab, SitemapsTab, SummaryTab, UserSitemapsTab } from './host-tabs.tsx';
import { VerificationTab } from './verification-tab.tsx';

/** The host id in the URL, e.g. https:example.com:443 → https://example.com. */
const hostUrlOf = (hostId: string) => {
  const [scheme, name] = hostId.split(':');
  return `${scheme === 'http' ? 'http' : 'https'}://${name ?? hostId}`;
};

function HostNotFound({ id, hostId }: { id: string; hostId: string }) {
  const add = useAddHost(id);
  const dialogs = useDialogs();
  const toasts = useToasts();
  // Register Host posts the host url with https (spec §8).
  const url = `https://${hostId.split(':')[1] ?? hostId}`;
  return (
    <Alert variant="warning" className="d-flex flex-wrap align-items-center gap-3">
      <span className="me-auto">Host is not found on this account</span>
      <Button
        disabled={add.isPending}
        onClick={() =>
          void add.mutateAsync(url).then(
            () => toasts.success('Host registered successfully'),
            (err) => void dialogs.apiError(err),
          )
        }
      >
        Register Host
      </Button>
    </Alert>
  );
}

export function HostPage() {
  const { id = '', hostId = '' } = useParams();
  const host = useHost(id, hostId);
  const verified = Boolean(host.data?.verified);
  const title = host.data?.unicode_host_url ?? hostUrlOf(hostId);
  return (
    <>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto text-break">Host {title}</h1>
        <LinkButton to={webmasterPaths.hostDelete(id, hostId)} variant="outline-danger">
          Delete Host
        </LinkButton>
        <LinkButton to={webmasterPaths.hosts(id)} variant="outline-secondary">
          Back to hosts
        </LinkButton>
      </div>
      {host.isPending ? (
        <LoadingSpinner />
      ) : host.isError && isYandexError(host.error, 'HOST_NOT_FOUND') ? (
        <HostNotFound id={id} hostId={hostId} />
      ) : host.isError ? (
        <ErrorBox detail={errorMessage(host.error)} onRefresh={() => void host.refetch()} />
      ) : (
        <QueryTabs defaultActiveKey="general" id="host-tabs" className="mb-3 small" mountOnEnter>
          <Tab tabClassName="px-2" eventKey="general" title="General">
            <StaticField label="Host Id" value={<code>{host.data.host_id}</code>} />
            <StaticField label="Host Url" value={host.data.unicode_host_url ?? host.data.ascii_host_url ?? '—'} />
            <StaticField label="Verified" value={<VerifiedBadge verified={host.data.verified} />} />
            {host.data.host_data_status && (
              <StaticField label="Data Status" value={<YandexCode code={host.data.host_data_status} />} />
            )}
            {host.data.main_mirror && (
              <StaticField
                label="Main Mirror"
                value={host.data.main_mirror.unicode_host_url ?? host.data.main_mirror.host_id}
              />
            )}
            {!verified && (
              <Alert variant="info">
                The other tabs open once the host is verified: see the <strong>Verification</strong> tab.
              </Alert>
            )}
          </Tab>
          <Tab tabClassName="px-2" eventKey="summary" title="Summary" disabled={!verified}>
            <SummaryTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="important-urls" title="Important URLs" disabled={!verified}>
            <ImportantUrlsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="sitemaps" title="Sitemaps" disabled={!verified}>
            <SitemapsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="user-added-sitemaps" title="User Added Sitemaps" disabled={!verified}>
            <UserSitemapsTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="recrawl" title="Recrawl" disabled={!verified}>
            <RecrawlTab id={id} hostId={hostId} enabled={verified} />
          </Tab>
          <Tab tabClassName="px-2" eventKey="verification" title="Verification">
            <VerificationTab id={id} hostId={hostId} onVerified={() => void host.refetch()} />
          </Tab>
        </QueryTabs>
      )}
    </>
  );
}
