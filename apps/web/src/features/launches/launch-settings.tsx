import { useEffect, useMemo, useState, type ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';
import Card from 'react-bootstrap/Card';
import CloseButton from 'react-bootstrap/CloseButton';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import {
  SSL_MODES,
  SSL_MODE_LABELS,
  type Brand,
  type Cloud,
  type DnsTemplate,
  type DomainListItem,
  type DomainRegistrator,
  type DomainRegistratorContact,
  type FirewallRule,
  type LaunchDnsRecord,
  type LaunchSettings,
  type Region,
  type Server,
  type SslMode,
  type YandexWebmasterAccount,
  type GoogleSearchAccount,
} from '@fleetdesk/contract';
import { PickerField } from '../../components/picker-field.tsx';
import { DnsTemplatePicker, dnsTemplateLabel } from '../../components/pickers/dns-template-picker.tsx';
import { launchProfilesApi } from '../launch-profiles/launch-profiles-api.ts';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { CloudPicker, cloudLabel } from '../../components/pickers/cloud-picker.tsx';
import { DomainPicker, domainLabel } from '../../components/pickers/domain-picker.tsx';
import {
  DomainRegistratorContactPicker,
  domainRegistratorContactLabel,
} from '../../components/pickers/domain-registrator-contact-picker.tsx';
import {
  DomainRegistratorPicker,
  domainRegistratorLabel,
} from '../../components/pickers/domain-registrator-picker.tsx';
import { FirewallRulePicker, firewallRuleLabel } from '../../components/pickers/firewall-rule-picker.tsx';
import { RegionPicker, regionLabel } from '../../components/pickers/region-picker.tsx';
import { ServerPicker, serverLabel } from '../../components/pickers/server-picker.tsx';
import {
  YandexWebmasterAccountPicker,
  yandexWebmasterAccountLabel,
} from '../../components/pickers/yandex-webmaster-account-picker.tsx';
import {
  GoogleSearchAccountPicker,
  googleSearchAccountLabel,
} from '../../components/pickers/google-search-account-picker.tsx';

/** Without a profile or template, what most sites need. */
const DEFAULT_RECORDS = 'A @ {serverIp}\nCNAME www {domain}';
const NO_PROFILE = 'none';
const PROXIED_TYPES = new Set(['A', 'AAAA', 'CNAME']);

/** "TYPE NAME CONTENT" per line; the content may hold spaces (TXT). */
export function parseRecords(text: string): LaunchDnsRecord[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 200)
    .map((line) => {
      const [type = '', name = '', ...rest] = line.split(/\s+/);
      const t = type.toUpperCase() as LaunchDnsRecord['type'];
      return { type: t, name, content: rest.join(' '), proxied: PROXIED_TYPES.has(t), ttl: 1 };
    });
}

type ContentType = 'none' | 'copy' | 'parse';

/** The settings a launch (or a batch of them) takes, with its fields; `settings` is what the API reads. */
export function useLaunchSettings() {
  const profiles = launchProfilesApi.useList({ page: 1 });
  const [profileId, setProfileId] = useState<string | null>(null);
  const [template, setTemplate] = useState<DnsTemplate | null>(null);
  const [tls, setTls] = useState<'' | 'on' | 'off'>('');
  // The first profile is chosen at first, so a name and Launch is enough (the demo has one ready).
  const firstProfile = profiles.data?.items[0]?._id ?? null;
  useEffect(() => {
    if (profileId === null && firstProfile) setProfileId(firstProfile);
  }, [profileId, firstProfile]);
  const withProfile = !!profileId && profileId !== NO_PROFILE;
  const [server, setServer] = useState<Server | null>(null);
  const [brand, setBrand] = useState<Brand | null>(null);
  const [cloud, setCloud] = useState<Cloud | null>(null);
  const [registrator, setRegistrator] = useState<DomainRegistrator | null>(null);
  const [register, setRegister] = useState(true);
  const [contact, setContact] = useState<DomainRegistratorContact | null>(null);
  const [contentType, setContentType] = useState<ContentType>('none');
  const [copyFrom, setCopyFrom] = useState<DomainListItem | null>(null);
  const [parseUrl, setParseUrl] = useState('');
  const [region, setRegion] = useState<Region | null>(null);
  const [records, setRecords] = useState('');
  const [rules, setRules] = useState<FirewallRule[]>([]);
  const [sslMode, setSslMode] = useState<SslMode | ''>('');
  const [webmaster, setWebmaster] = useState<YandexWebmasterAccount | null>(null);
  const [verification, setVerification] = useState<'DNS' | 'HTML_FILE'>('DNS');
  const [google, setGoogle] = useState<GoogleSearchAccount | null>(null);
  // An empty setting takes the profile's value: say so rather than "None".
  const profilePlaceholder = withProfile ? "The profile's" : 'None';

  const settings = useMemo(
    () => ({
      profileId: withProfile ? profileId : null,
      dnsTemplateId: template?._id ?? null,
      serverId: server?._id ?? null,
      brandId: brand?._id ?? null,
      cloudId: cloud?._id ?? null,
      registration: registrator
        ? { domainRegistratorId: registrator._id, register, contactId: contact?._id ?? null, years: 1 }
        : null,
      content: (contentType === 'copy' && copyFrom
        ? { type: 'copy', fromDomainId: copyFrom._id }
        : contentType === 'parse' && parseUrl.trim()
          ? { type: 'parse', url: parseUrl.trim(), regionId: region?._id ?? null }
          : { type: 'none' }) as LaunchSettings['content'],
      dnsRecords: parseRecords(records || (withProfile || template ? '' : DEFAULT_RECORDS)),
      firewallRules: rules.map((r) => ({ ruleId: r._id, priority: r.defaultPriority })),
      sslMode: sslMode || null,
      ...(tls ? { tls13: tls === 'on' } : {}),
      yandexWebmasterAccountId: webmaster?._id ?? null,
      verification,
      googleSearchAccountId: google?._id ?? null,
    }),
    [
      profileId,
      withProfile,
      template,
      server,
      brand,
      cloud,
      registrator,
      register,
      contact,
      contentType,
      copyFrom,
      parseUrl,
      region,
      records,
      rules,
      sslMode,
      tls,
      webmaster,
      verification,
      google,
    ],
  );

  /** The fields; `fields` are the API's per-field messages. */
  const view = (fields: Record<string, string>): ReactNode => (
    <>
      <Card body className="mb-3">
        <Form.Group controlId="launch-profile">
          <Form.Label>Launch profile</Form.Label>
          <Form.Select
            value={profileId ?? NO_PROFILE}
            onChange={(e) => setProfileId(e.currentTarget.value)}
            isInvalid={!!fields.profileId}
          >
            <option value={NO_PROFILE}>None: every setting below</option>
            {profiles.data?.items.map((p) => (
              <option key={p._id} value={p._id}>
                {p.name}
              </option>
            ))}
          </Form.Select>
          <Form.Control.Feedback type="invalid">{fields.profileId}</Form.Control.Feedback>
          <Form.Text>
            {withProfile
              ? "A setting left empty below takes the profile's value; the plan shows what the launch will do."
              : 'Without a profile, the launch does what is set below.'}
          </Form.Text>
        </Form.Group>
      </Card>
      <Card body className="mb-3">
        <PickerField<Server>
          label="Server"
          value={server}
          onChange={setServer}
          getLabel={serverLabel}
          picker={ServerPicker}
          placeholder={profilePlaceholder}
          error={fields.serverId}
        />
        <PickerField<Brand>
          label="Brand"
          value={brand}
          onChange={setBrand}
          getLabel={brandLabel}
          picker={BrandPicker}
          placeholder={profilePlaceholder}
          error={fields.brandId}
        />
        <PickerField<Cloud>
          label="Cloud"
          value={cloud}
          onChange={setCloud}
          getLabel={cloudLabel}
          picker={CloudPicker}
          placeholder={profilePlaceholder}
          error={fields.cloudId}
        />
      </Card>
      <Card body className="mb-3">
        <PickerField<DomainRegistrator>
          label="Domain registrator"
          value={registrator}
          onChange={setRegistrator}
          getLabel={domainRegistratorLabel}
          picker={DomainRegistratorPicker}
          placeholder={profilePlaceholder}
          error={fields['registration.domainRegistratorId']}
        />
        {registrator && (
          <>
            <Form.Check
              id="launch-register"
              className="mb-2"
              label="Register the name (it is not registered yet)"
              checked={register}
              onChange={(e) => setRegister(e.currentTarget.checked)}
            />
            {register && (
              <>
                <PickerField<DomainRegistratorContact>
                  label="Contact"
                  value={contact}
                  onChange={setContact}
                  getLabel={domainRegistratorContactLabel}
                  picker={DomainRegistratorContactPicker}
                  error={fields['registration.contactId']}
                  required
                />
              </>
            )}
          </>
        )}
      </Card>
      <Card body className="mb-3">
        <Form.Group className="mb-3" controlId="launch-content">
          <Form.Label>Content</Form.Label>
          <Form.Select value={contentType} onChange={(e) => setContentType(e.currentTarget.value as ContentType)}>
            <option value="none">{withProfile ? "The profile's" : 'Nothing'}</option>
            <option value="copy">Copy from a domain (its name replaced by the new one)</option>
            <option value="parse">Parse a URL</option>
          </Form.Select>
        </Form.Group>
        {contentType === 'copy' && (
          <PickerField<DomainListItem>
            label="Copy from"
            value={copyFrom}
            onChange={setCopyFrom}
            getLabel={domainLabel}
            picker={DomainPicker}
            error={fields['content.fromDomainId']}
            required
          />
        )}
        {contentType === 'parse' && (
          <>
            <Form.Group className="mb-3" controlId="launch-parse-url">
              <Form.Label>URL to parse</Form.Label>
              <Form.Control
                value={parseUrl}
                onChange={(e) => setParseUrl(e.currentTarget.value)}
                placeholder="https://example.org/"
                isInvalid={!!fields['content.url']}
              />
              <Form.Control.Feedback type="invalid">{fields['content.url']}</Form.Control.Feedback>
            </Form.Group>
            <PickerField<Region>
              label="Through the proxies of"
              value={region}
              onChange={setRegion}
              getLabel={regionLabel}
              picker={RegionPicker}
              placeholder="Directly"
            />
          </>
        )}
      </Card>
      <Card body className="mb-3">
        <PickerField<DnsTemplate>
          label="DNS template"
          value={template}
          onChange={setTemplate}
          getLabel={dnsTemplateLabel}
          picker={DnsTemplatePicker}
          placeholder={profilePlaceholder}
          error={fields.dnsTemplateId}
        />
        <Form.Group className="mb-3" controlId="launch-dns">
          <Form.Label>DNS records</Form.Label>
          <Form.Control
            as="textarea"
            rows={3}
            placeholder={withProfile || template ? "Empty: the template's records" : DEFAULT_RECORDS}
            value={records}
            onChange={(e) => setRecords(e.currentTarget.value)}
            className="font-monospace"
            isInvalid={Object.keys(fields).some((k) => k.startsWith('dnsRecords'))}
          />
          <Form.Text>
            One per line: type, name, content. {'{domain}'} and {'{serverIp}'} stand for the domain and its
            server&apos;s address.
          </Form.Text>
        </Form.Group>
        <Form.Label>Firewall rule templates</Form.Label>
        <div className="d-flex flex-wrap gap-2 mb-2">
          {rules.map((r) => (
            <Badge key={r._id} bg="secondary" className="d-flex align-items-center gap-1">
              {r.name}
              <CloseButton
                variant="white"
                aria-label={`Remove ${r.name}`}
                onClick={() => setRules(rules.filter((x) => x._id !== r._id))}
              />
            </Badge>
          ))}
        </div>
        <PickerField<FirewallRule>
          label="Add a template"
          value={null}
          onChange={(r) => r && !rules.some((x) => x._id === r._id) && setRules([...rules, r])}
          getLabel={firewallRuleLabel}
          picker={FirewallRulePicker}
        />
        <Row className="g-2">
          <Col sm={6}>
            <Form.Group controlId="launch-ssl">
              <Form.Label>SSL mode</Form.Label>
              <Form.Select value={sslMode} onChange={(e) => setSslMode(e.currentTarget.value as SslMode | '')}>
                <option value="">{withProfile ? "The profile's" : 'Leave as it is'}</option>
                {SSL_MODES.map((m) => (
                  <option key={m} value={m}>
                    {SSL_MODE_LABELS[m]}
                  </option>
                ))}
              </Form.Select>
            </Form.Group>
          </Col>
          <Col sm={6}>
            <Form.Group controlId="launch-tls13">
              <Form.Label>TLS 1.3</Form.Label>
              <Form.Select value={tls} onChange={(e) => setTls(e.currentTarget.value as '' | 'on' | 'off')}>
                <option value="">{withProfile ? "The profile's" : 'On'}</option>
                <option value="on">On</option>
                <option value="off">Leave as it is</option>
              </Form.Select>
            </Form.Group>
          </Col>
        </Row>
      </Card>
      <Card body className="mb-3">
        <PickerField<YandexWebmasterAccount>
          label="Yandex Webmaster account"
          value={webmaster}
          onChange={setWebmaster}
          getLabel={yandexWebmasterAccountLabel}
          picker={YandexWebmasterAccountPicker}
          placeholder={profilePlaceholder}
          error={fields.yandexWebmasterAccountId}
        />
        {webmaster && (
          <Form.Group controlId="launch-verification">
            <Form.Label>Verify through</Form.Label>
            <Form.Select
              value={verification}
              onChange={(e) => setVerification(e.currentTarget.value as 'DNS' | 'HTML_FILE')}
            >
              <option value="DNS">A TXT record in the zone</option>
              <option value="HTML_FILE">A file in the site</option>
            </Form.Select>
          </Form.Group>
        )}
        <PickerField<GoogleSearchAccount>
          label="Google account"
          value={google}
          onChange={setGoogle}
          getLabel={googleSearchAccountLabel}
          picker={GoogleSearchAccountPicker}
          placeholder={profilePlaceholder}
          error={fields.googleSearchAccountId}
        />
      </Card>
    </>
  );
  return { settings, view };
}
