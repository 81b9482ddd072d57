import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import Form from 'react-bootstrap/Form';
import Tab from 'react-bootstrap/Tab';
import { useFormContext, useFormState, useWatch } from 'react-hook-form';
import { DomainNameLookNote } from '../../components/domain-name-look.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import {
  DomainInputSchema,
  STATUSES,
  type Cloud,
  type Domain,
  type DomainInput,
  type Server,
} from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField, useFieldError } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { CloudPicker, cloudLabel } from '../../components/pickers/cloud-picker.tsx';
import {
  DomainRegistratorPicker,
  domainRegistratorLabel,
} from '../../components/pickers/domain-registrator-picker.tsx';
import { RegionPicker, regionLabel } from '../../components/pickers/region-picker.tsx';
import { ServerPicker, isServerFull, serverFill, serverLabel } from '../../components/pickers/server-picker.tsx';
import { DirectAdminTab } from '../direct-admin/index.ts';
import { IspManagerTab } from '../ispmanager/index.ts';
import { DomainHealthTab } from '../health/domain-health-tab.tsx';
import { DomainTrafficTab } from '../traffic/domain-traffic-tab.tsx';

// The Google tab comes when first opened (its own chunk; the charts a further one).
const DomainGoogleTab = lazy(() => import('../google-search/domain-google-tab.tsx'));
import { CloudZoneInfo } from './cloud-zone/index.ts';
import { DomainMenus } from './domain-menus.tsx';
import { DomainRunningJob } from '../jobs/domain-running-job.tsx';
import {
  DOMAIN_TABS,
  NEW_DOMAIN,
  domainPaths,
  domainsApi,
  toFormValues,
  useCloudBrandConflict,
  type DomainFormValues,
  type DomainTab,
} from './domains-api.ts';
import { RefField, refPicker } from './ref-field.tsx';
import { RegistratorInfo } from './registrator-info.tsx';
import {
  YandexWebmasterAccountPicker,
  yandexWebmasterAccountLabel,
} from '../../components/pickers/yandex-webmaster-account-picker.tsx';
import { DomainWebmasterTab } from '../yandex-webmaster/domain-webmaster-tab.tsx';
import { accountsApi as webmasterAccountsApi } from '../yandex-webmaster/yandex-webmaster-api.ts';

const STATUS_OPTIONS = STATUSES.map((status) => ({ value: status, label: status }));

export const IN_USE_CLOUD_WARNING = 'Another domain of this brand already uses this cloud.';
export const IN_USE_BRAND_WARNING = "Another domain of this brand already uses this domain's cloud.";

/** Which fields each tab holds: a tab with an error is marked, and a failed save opens it. */
const TAB_FIELDS: Record<DomainTab, readonly (keyof DomainFormValues)[]> = {
  general: [
    'domainName',
    'status',
    'serverId',
    'brandId',
    'parserEnabled',
    'isSinglePage',
    'parserURL',
    'parserProxyRegionId',
    'redirectDomainName',
    'isRestricted',
  ],
  cloud: ['cloudId'],
  'direct-admin': [],
  'isp-manager': [],
  'domain-registrator': ['domainRegistratorId', 'domainRegistratorExpirationDate'],
  'yandex-webmaster': ['yandexWebmasterAccountId'],
};

type ServerRef = Pick<Server, '_id' | 'IPAddress' | 'email'> & Partial<Pick<Server, 'domainsQty' | 'domainsLimitQty'>>;
type NamedRef = { _id: string; name: string };

const REFS = {
  server: refPicker<ServerRef>('serverId', 'Server', serverLabel, ServerPicker),
  brand: refPicker<NamedRef>('brandId', 'Brand', brandLabel, BrandPicker),
  region: refPicker<NamedRef>('parserProxyRegionId', 'Parser Proxy Region', regionLabel, RegionPicker),
  cloud: refPicker<Pick<Cloud, '_id' | 'email'>>('cloudId', 'Cloud', cloudLabel, CloudPicker),
  registrator: refPicker<NamedRef>(
    'domainRegistratorId',
    'Domain Registrator',
    domainRegistratorLabel,
    DomainRegistratorPicker,
  ),
  webmaster: refPicker<NamedRef>(
    'yandexWebmasterAccountId',
    'Yandex Webmaster Account',
    yandexWebmasterAccountLabel,
    YandexWebmasterAccountPicker,
  ),
};

function TabTitle({ tab, title }: { tab: DomainTab; title: string }) {
  const { errors } = useFormState<DomainFormValues>();
  const bad = TAB_FIELDS[tab].some((f) => errors[f]);
  return (
    <>
      {title}
      {bad && (
        <span className="text-danger ms-1" aria-hidden="true">
          ●
        </span>
      )}
      {bad && <span className="visually-hidden"> (has errors)</span>}
    </>
  );
}

/** After a save that failed, opens the first tab with an error when the current one has none. */
function useOpenTabWithErrors() {
  const { errors } = useFormState<DomainFormValues>();
  const [searchParams, setSearchParams] = useSearchParams();
  const keys = Object.keys(errors).sort().join(',');
  const seen = useRef('');
  const active = searchParams.get('tab') ?? 'general';
  useEffect(() => {
    const previous = new Set(seen.current.split(',').filter(Boolean));
    seen.current = keys;
    const now = keys.split(',').filter(Boolean);
    if (!now.some((k) => !previous.has(k))) return;
    const failing = DOMAIN_TABS.filter((t) => TAB_FIELDS[t.key].some((f) => now.includes(f)));
    if (!failing.length || failing.some((t) => t.key === active)) return;
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.set('tab', failing[0]!.key);
        return next;
      },
      { replace: true },
    );
  }, [keys, active, setSearchParams]);
}

function DateField({ name, label }: { name: 'domainRegistratorExpirationDate'; label: string }) {
  const { register } = useFormContext<DomainFormValues>();
  const error = useFieldError<DomainFormValues>(name);
  return (
    <Form.Group className="mb-3" controlId={`field-${name}`} style={{ maxWidth: 240 }}>
      <Form.Label>{label}</Form.Label>
      <Form.Control type="date" isInvalid={Boolean(error)} {...register(name)} />
      {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
    </Form.Group>
  );
}

/** The tabs that only read the saved domain, by their page title: the form's Save has nothing to do there. */
const READ_ONLY_TABS: Readonly<Record<string, string>> = {
  'direct-admin': 'Domain on Direct Admin',
  'isp-manager': 'Domain on ISP Manager',
  health: 'Domain Health',
  traffic: 'Domain Traffic',
  'google-search': 'Domain on Google Search Console',
};

/**
 * A hosting panel tab: the panel is asked only for a saved domain with a saved server; otherwise a note says
 * what to do first (asking would only answer 400).
 */
function PanelTab({
  item,
  testId,
  children,
}: {
  item?: Domain;
  testId: string;
  children: (domainId: string) => ReactNode;
}) {
  if (!item) return <p className="text-body-secondary">Save the domain first.</p>;
  if (!item.serverId) {
    return (
      <p className="text-body-secondary" data-testid={testId} data-state="no-server">
        This domain has no server. Pick one on the{' '}
        <Link to={`${domainPaths.edit(item._id)}?tab=general`} replace>
          General tab
        </Link>{' '}
        and save first.
      </p>
    );
  }
  return children(item._id);
}

function DomainFields({ item }: { item?: Domain }) {
  const { control } = useFormContext<DomainFormValues>();
  const brandId = useWatch({ control, name: 'brandId' });
  const cloudId = useWatch({ control, name: 'cloudId' });
  const domainName = useWatch({ control, name: 'domainName' });
  const [server, setServer] = useState<ServerRef | null>(item?.server ?? null);
  const [brand, setBrand] = useState<NamedRef | null>(item?.brand ?? null);
  const [cloud, setCloud] = useState<Pick<Cloud, '_id' | 'email'> | null>(item?.cloud ?? null);
  const [region, setRegion] = useState<NamedRef | null>(item?.parserProxyRegion ?? null);
  const [registrator, setRegistrator] = useState<NamedRef | null>(item?.domainRegistrator ?? null);
  const webmasterAccountId = useWatch({ control, name: 'yandexWebmasterAccountId' });
  // The domain holds only the account id: its name comes from the account itself.
  const savedAccount = webmasterAccountsApi.useItem(item?.yandexWebmasterAccountId ?? undefined);
  const [pickedAccount, setWebmasterAccount] = useState<NamedRef | null>(null);
  const webmasterAccount =
    pickedAccount ?? (savedAccount.data ? { _id: savedAccount.data._id, name: savedAccount.data.name } : null);
  useOpenTabWithErrors();

  const conflict = useCloudBrandConflict({
    domainId: item?._id,
    brandId,
    cloud: cloud && cloud._id === cloudId ? cloud : null,
  });
  // A freshly picked server carries its fill; the loaded one does not, and staying on it is always allowed.
  const fill =
    server && server._id !== item?.serverId && server.domainsQty !== undefined && server.domainsLimitQty !== undefined
      ? { domainsQty: server.domainsQty, domainsLimitQty: server.domainsLimitQty }
      : null;
  const serverWarning =
    fill && isServerFull(fill) ? `This server is full (${serverFill(fill)}): saving will be refused.` : undefined;

  return (
    // Small labels and padding keep the six tabs on one line within the form's 720px.
    <QueryTabs defaultActiveKey="general" id="domain-tabs" className="mb-3 small">
      <Tab tabClassName="px-2" eventKey="general" title={<TabTitle tab="general" title="General" />}>
        {item && <StaticField label="№" value={item.domainNo} />}
        <TextField<DomainFormValues>
          name="domainName"
          label="Domain Name"
          required
          maxLength={253}
          autoFocus={!item}
          help={
            <DomainNameLookNote
              value={domainName ?? ''}
              stored={item?.domainName}
              fallback={
                item && item.domainName !== item.domainNameUnicode ? `Stored as ${item.domainName}` : 'e.g. example.com'
              }
            />
          }
        />
        <SelectField<DomainFormValues> name="status" label="Status" required options={STATUS_OPTIONS} />
        <RefField {...REFS.server} value={server} onValueChange={setServer} warning={serverWarning} />
        <RefField
          {...REFS.brand}
          value={brand}
          onValueChange={setBrand}
          inUse={{ cloudId, domainId: item?._id }}
          warning={conflict ? IN_USE_BRAND_WARNING : undefined}
        />
        <CheckField<DomainFormValues> name="parserEnabled" label="Parser Enabled" />
        <CheckField<DomainFormValues> name="isSinglePage" label="Single Page" />
        <TextField<DomainFormValues>
          name="parserURL"
          label="Parser URL"
          type="url"
          maxLength={2000}
          placeholder="https://"
        />
        <RefField {...REFS.region} value={region} onValueChange={setRegion} />
        <TextField<DomainFormValues>
          name="redirectDomainName"
          label="Redirect Domain"
          maxLength={253}
          help={
            item?.redirectDomainName && item.redirectDomainName !== item.redirectDomainNameUnicode
              ? `Stored as ${item.redirectDomainName}`
              : undefined
          }
        />
        <CheckField<DomainFormValues> name="isRestricted" label="Restricted" />
      </Tab>

      <Tab tabClassName="px-2" eventKey="cloud" title={<TabTitle tab="cloud" title="Cloud" />}>
        <RefField
          {...REFS.cloud}
          value={cloud}
          onValueChange={setCloud}
          inUse={{ brandId, domainId: item?._id }}
          warning={conflict ? IN_USE_CLOUD_WARNING : undefined}
        />
        {!brandId && (
          <p className="small text-body-secondary mt-n2">
            With a brand picked on the General tab, the list marks the clouds its other domains use.
          </p>
        )}
        <StaticField label="Cloud Zone Id" value={item?.cloudZoneId || '—'} />
        <StaticField label="Cloud Ruleset Id" value={item?.cloudRulesetId || '—'} />
        {/* The zone's block; its actions are the header's Cloud Actions menu. */}
        {item && (
          <div className="mb-3" data-testid="cloud-zone-section">
            <CloudZoneInfo domainId={item._id} cloudZoneId={item.cloudZoneId} />
          </div>
        )}
      </Tab>

      {/* The panel tabs call their panel only when opened. */}
      <Tab tabClassName="px-2" eventKey="direct-admin" title="Direct Admin" mountOnEnter>
        <PanelTab item={item} testId="direct-admin-panel">
          {(id) => <DirectAdminTab domainId={id} />}
        </PanelTab>
      </Tab>

      <Tab tabClassName="px-2" eventKey="isp-manager" title="ISP Manager" mountOnEnter>
        <PanelTab item={item} testId="ispmanager-panel">
          {(id) => <IspManagerTab domainId={id} />}
        </PanelTab>
      </Tab>

      <Tab
        tabClassName="px-2"
        eventKey="domain-registrator"
        title={<TabTitle tab="domain-registrator" title="Domain Registrator" />}
      >
        <RefField {...REFS.registrator} value={registrator} onValueChange={setRegistrator} />
        <DateField name="domainRegistratorExpirationDate" label="Expiration Date" />
        <RegistratorInfo item={item} />
      </Tab>

      <Tab
        tabClassName="px-2"
        eventKey="yandex-webmaster"
        title={<TabTitle tab="yandex-webmaster" title="Yandex Webmaster" />}
      >
        <RefField
          {...REFS.webmaster}
          value={webmasterAccount}
          onValueChange={setWebmasterAccount}
          inUse={{ brandId, domainId: item?._id }}
        />
        {item?.yandexWebmasterAccountId && (
          <DomainWebmasterTab
            domainId={item._id}
            accountId={item.yandexWebmasterAccountId}
            hasZone={Boolean(item.cloudZoneId)}
            dirty={webmasterAccountId !== item.yandexWebmasterAccountId}
          />
        )}
      </Tab>

      <Tab tabClassName="px-2" eventKey="google-search" title="Google" mountOnEnter>
        {item ? (
          <Suspense fallback={<LoadingSpinner />}>
            <DomainGoogleTab domainId={item._id} />
          </Suspense>
        ) : (
          <p className="text-body-secondary">Save the domain first.</p>
        )}
      </Tab>

      <Tab tabClassName="px-2" eventKey="health" title="Health" mountOnEnter>
        {item ? <DomainHealthTab domainId={item._id} /> : <p className="text-body-secondary">Save the domain first.</p>}
      </Tab>

      <Tab tabClassName="px-2" eventKey="traffic" title="Traffic" mountOnEnter>
        {item ? (
          <DomainTrafficTab domainId={item._id} />
        ) : (
          <p className="text-body-secondary">Save the domain first.</p>
        )}
      </Tab>
    </QueryTabs>
  );
}

export function DomainFormPage() {
  const { id } = useParams();
  const [searchParams] = useSearchParams();
  const tab = searchParams.get('tab') ?? '';
  const readOnly = Object.hasOwn(READ_ONLY_TABS, tab) ? READ_ONLY_TABS[tab] : undefined;
  return (
    <FormView<Domain, DomainFormValues, DomainInput>
      entity="Domain"
      resource={domainsApi}
      schema={DomainInputSchema as never}
      id={id}
      defaultValues={NEW_DOMAIN}
      toValues={toFormValues}
      paths={domainPaths}
      hideDelete
      hideSubmit={readOnly !== undefined}
      editTitle={readOnly}
      actions={(item) => <DomainMenus domainId={item._id} cloudZoneId={item.cloudZoneId} />}
    >
      {({ item }) => (
        <>
          {item && <DomainRunningJob domainId={item._id} />}
          <DomainFields item={item} />
        </>
      )}
    </FormView>
  );
}
