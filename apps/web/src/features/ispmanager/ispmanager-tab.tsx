import { Fragment } from 'react';
import Alert from 'react-bootstrap/Alert';
import { ISPMANAGER_MESSAGES, type IspSiteInfoData } from '@fleetdesk/contract';
import { PanelFrame } from '../../components/panel-frame.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { useCreateIspSite, useIspSiteInfo } from './ispmanager-api.ts';

const ROWS: [keyof IspSiteInfoData, string][] = [
  ['name', 'Name'],
  ['owner', 'Owner'],
  ['home', 'Home directory'],
  ['aliases', 'Aliases'],
  ['email', 'Administrator email'],
  ['ipaddrs', 'IP addresses'],
  ['php', 'PHP'],
  ['phpVersion', 'PHP version'],
  ['secure', 'SSL'],
  ['active', 'Active'],
];

function SiteDetails({ site }: { site: IspSiteInfoData }) {
  return (
    <dl className="row mb-0 small" data-testid="ispmanager-details">
      {ROWS.map(([key, label]) => (
        <Fragment key={key}>
          <dt className="col-sm-4">{label}</dt>
          <dd className="col-sm-8">{site[key] || '—'}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/**
 * The domain's ISP Manager tab (spec 2 §4): site created (its details), info unparsable (the panel's raw
 * answer, collapsed), or site not created with Create site.
 */
export function IspManagerTab({ domainId }: { domainId: string }) {
  const toasts = useToasts();
  const info = useIspSiteInfo(domainId);
  const create = useCreateIspSite(domainId);

  return (
    <PanelFrame
      name="ispmanager"
      query={info}
      showError={(error, testId) => (
        <Alert variant="danger" data-testid={testId}>
          {error.message}
        </Alert>
      )}
    >
      {(site) =>
        !site ? (
          <>
            {create.error && (
              <Alert variant="danger" data-testid="ispmanager-error">
                {create.error.message}
              </Alert>
            )}
            <Alert variant="secondary" data-testid="ispmanager-state">
              {ISPMANAGER_MESSAGES.siteNotCreated}
            </Alert>
            <SubmitButton
              type="button"
              pending={create.isPending}
              disabled={info.isFetching}
              onClick={() => create.mutate(undefined, { onSuccess: () => toasts.success(ISPMANAGER_MESSAGES.created) })}
            >
              Create site
            </SubmitButton>
          </>
        ) : !site.siteInfoData ? (
          <>
            <Alert variant="warning" data-testid="ispmanager-state">
              {ISPMANAGER_MESSAGES.infoUnparsable}
            </Alert>
            {site.rawAnswer !== null && (
              <details data-testid="ispmanager-raw">
                <summary>{ISPMANAGER_MESSAGES.rawAnswer}</summary>
                <pre
                  className="small bg-body-tertiary border rounded p-2 mt-2 mb-0"
                  style={{ maxHeight: 320, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
                >
                  {site.rawAnswer}
                </pre>
              </details>
            )}
          </>
        ) : (
          <>
            <Alert variant="success" data-testid="ispmanager-state">
              {ISPMANAGER_MESSAGES.siteCreated}
            </Alert>
            <SiteDetails site={site.siteInfoData} />
          </>
        )
      }
    </PanelFrame>
  );
}
