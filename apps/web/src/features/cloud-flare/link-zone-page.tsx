import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { LinkZoneInputSchema, type CloudZoneListItem, type Domain } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { Pager } from '../../components/pager.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { cloudFlarePaths, useCloudZones, useLinkZone } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';

const ZONE_STATUS_BADGE: Record<string, string> = { active: 'active', pending: 'queued', moved: 'inactive' };

/**
 * The zones of the cloud's Cloudflare account, searchable and paged. Only the zone carrying the domain's name
 * can be linked (the API refuses others), so other names are shown but not offered; a zone another domain
 * already links is marked with that domain.
 */
function ZonePicker({
  domain,
  picked,
  onPick,
}: {
  domain: Domain;
  picked: string;
  onPick: (zone: CloudZoneListItem) => void;
}) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const zones = useCloudZones(domain._id, search, page);
  const own = domain.domainName.toLowerCase();
  return (
    <section className="mb-4" data-testid="zone-picker" aria-label="Zones of the Cloudflare account">
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <h2 className="h6 mb-0 me-auto">Zones of the Cloudflare account</h2>
        <SearchBox
          value={search}
          placeholder="Search zones"
          onSearch={(value) => {
            setSearch(value);
            setPage(1);
          }}
        />
      </div>
      {zones.isPending ? (
        <LoadingSpinner />
      ) : zones.isError ? (
        <ErrorBox detail={errorMessage(zones.error)} onRefresh={() => void zones.refetch()} />
      ) : (
        <>
          <Table responsive hover size="sm" className="fd-list-table align-middle mb-0">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Plan</th>
                <th scope="col">Linked to</th>
                <th scope="col">
                  <span className="visually-hidden">Pick</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {zones.data.items.length === 0 && (
                <tr className="fd-empty-row">
                  <td colSpan={5} className="text-body-secondary">
                    {search ? `No zone matches "${search}"` : 'This Cloudflare account has no zones'}
                  </td>
                </tr>
              )}
              {zones.data.items.map((z) => {
                const sameName = z.name.toLowerCase() === own;
                const isPicked = z.id === picked;
                return (
                  <tr key={z.id} data-testid="zone-row" className={isPicked ? 'table-active' : undefined}>
                    <td className="fd-cell-main" data-label="Name">
                      <div>
                        <span className="fw-semibold">{z.name}</span>
                        <div className="small text-body-secondary font-monospace text-break">{z.id}</div>
                      </div>
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={ZONE_STATUS_BADGE[z.status] ?? 'unknown'} label={z.status} />
                    </td>
                    <td data-label="Plan">{z.plan ?? '—'}</td>
                    <td data-label="Linked to">
                      {z.id === domain.cloudZoneId ? (
                        <Badge bg="secondary" data-testid="zone-linked-here">
                          This domain
                        </Badge>
                      ) : z.linkedDomain ? (
                        <span data-testid="zone-linked">
                          <Badge bg="warning" text="dark" className="me-1">
                            Linked
                          </Badge>
                          <Link to={cloudFlarePaths.domain(z.linkedDomain._id)}>{z.linkedDomain.domainName}</Link>
                        </span>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td data-label="" className="text-end">
                      {sameName ? (
                        <button
                          type="button"
                          className={`btn btn-sm ${isPicked ? 'btn-primary' : 'btn-outline-primary'}`}
                          aria-pressed={isPicked}
                          onClick={() => onPick(z)}
                        >
                          {isPicked ? 'Picked' : 'Pick'}
                        </button>
                      ) : (
                        <span
                          className="small text-body-secondary"
                          title={`Only a zone named ${domain.domainNameUnicode} can be linked to this domain`}
                        >
                          Other name
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
          <Pager page={page} itemsCount={zones.data.totalCount} pageSize={zones.data.pageSize} onPageChange={setPage} />
        </>
      )}
    </section>
  );
}

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

  const [pickedZone, setPickedZone] = useState<CloudZoneListItem | null>(null);
  const pickedElsewhere =
    pickedZone && pickedZone.id === cloudZoneId.trim().toLowerCase() ? pickedZone.linkedDomain : null;

  return (
    <>
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
      <ZonePicker
        domain={domain}
        picked={cloudZoneId.trim().toLowerCase()}
        onPick={(zone) => {
          setPickedZone(zone);
          setCloudZoneId(zone.id);
          setError(undefined);
        }}
      />
      {/* The picker has its own search form, so the link form starts below it. */}
      <Form noValidate onSubmit={(event) => void handleSubmit(event)}>
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
            className="font-monospace"
            placeholder="Pick a zone above, or paste its id"
          />
          {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
          <Form.Text>32 hexadecimal characters, as on the zone&apos;s Overview page in Cloudflare.</Form.Text>
        </Form.Group>
        {pickedElsewhere && (
          <Alert variant="warning" data-testid="zone-linked-warning">
            This zone is already linked to {pickedElsewhere.domainName}; linking it here too makes both domains act on
            the same zone.
          </Alert>
        )}
        <div className="d-flex gap-2">
          <SubmitButton pending={link.isPending}>Link Zone</SubmitButton>
          <LinkButton to={cloudFlarePaths.cloudTab(domain._id)} variant="outline-secondary">
            Cancel
          </LinkButton>
        </div>
      </Form>
    </>
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
