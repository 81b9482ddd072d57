import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { useWatch } from 'react-hook-form';
import {
  CONTENT_SOURCE_KINDS,
  CONTENT_SOURCE_LABELS,
  LaunchProfileInputSchema,
  SSL_MODES,
  SSL_MODE_LABELS,
  type LaunchProfile,
  type LaunchProfileInput,
} from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { CloudPicker, cloudLabel } from '../../components/pickers/cloud-picker.tsx';
import { DnsTemplatePicker, dnsTemplateLabel } from '../../components/pickers/dns-template-picker.tsx';
import { DomainPicker, domainLabel } from '../../components/pickers/domain-picker.tsx';
import {
  DomainRegistratorContactPicker,
  domainRegistratorContactLabel,
} from '../../components/pickers/domain-registrator-contact-picker.tsx';
import {
  DomainRegistratorPicker,
  domainRegistratorLabel,
} from '../../components/pickers/domain-registrator-picker.tsx';
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
import { FirewallRulesField } from './firewall-rules-field.tsx';
import {
  NEW_PROFILE,
  launchProfilePaths,
  launchProfilesApi,
  refApis,
  toProfileValues,
  type LaunchProfileFormValues,
} from './launch-profiles-api.ts';
import { ProfileRefField } from './ref-field.tsx';

const CONTENT_OPTIONS = CONTENT_SOURCE_KINDS.map((k) => ({ value: k, label: CONTENT_SOURCE_LABELS[k] }));
const SSL_OPTIONS = SSL_MODES.map((m) => ({ value: m, label: SSL_MODE_LABELS[m] }));

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="mb-2 fd-form-section">
      <legend className="h6 text-body-secondary border-bottom pb-1 mb-3">{title}</legend>
      {children}
    </fieldset>
  );
}

function ProfileFields({ item }: { item?: LaunchProfile }) {
  const kind = useWatch<LaunchProfileFormValues, 'contentSource.kind'>({ name: 'contentSource.kind' });
  const register = useWatch<LaunchProfileFormValues, 'register'>({ name: 'register' });
  return (
    <>
      {item && <StaticField label="№" value={item.launchProfileNo} />}
      <TextField<LaunchProfileFormValues> name="name" label="Name" required maxLength={200} autoFocus={!item} />

      <Section title="Hosting and edge">
        <ProfileRefField
          name="serverId"
          label="Server"
          required
          useItem={refApis.servers.useItem}
          getLabel={serverLabel}
          picker={ServerPicker}
        />
        <ProfileRefField
          name="cloudId"
          label="Cloud"
          required
          useItem={refApis.clouds.useItem}
          getLabel={cloudLabel}
          picker={CloudPicker}
        />
        <ProfileRefField
          name="brandId"
          label="Brand"
          useItem={refApis.brands.useItem}
          getLabel={brandLabel}
          picker={BrandPicker}
        />
      </Section>

      <Section title="Registration">
        <CheckField<LaunchProfileFormValues>
          name="register"
          label="Register the name"
          help={register ? 'The launch registers the name (it asks before paying).' : 'The name is registered already.'}
        />
        <ProfileRefField
          name="domainRegistratorId"
          label="Domain Registrator"
          required={register}
          useItem={refApis.registrators.useItem}
          getLabel={domainRegistratorLabel}
          picker={DomainRegistratorPicker}
        />
        <ProfileRefField
          name="domainRegistratorContactId"
          label="Registrator Contact"
          required={register}
          useItem={refApis.contacts.useItem}
          getLabel={domainRegistratorContactLabel}
          picker={DomainRegistratorContactPicker}
        />
      </Section>

      <Section title="Content">
        <SelectField<LaunchProfileFormValues>
          name="contentSource.kind"
          label="Content Source"
          options={CONTENT_OPTIONS}
        />
        {kind === 'copy' && (
          <ProfileRefField
            name="contentSource.domainId"
            label="Copy From Domain"
            required
            useItem={refApis.domains.useItem}
            getLabel={domainLabel}
            picker={DomainPicker}
          />
        )}
        {kind === 'parse' && (
          <>
            <TextField<LaunchProfileFormValues>
              name="contentSource.url"
              label="URL To Parse"
              type="url"
              required
              maxLength={2000}
              placeholder="https://"
            />
            <ProfileRefField
              name="contentSource.regionId"
              label="Proxy Region"
              required
              useItem={refApis.regions.useItem}
              getLabel={regionLabel}
              picker={RegionPicker}
            />
          </>
        )}
      </Section>

      <Section title="DNS and Cloudflare">
        <ProfileRefField
          name="dnsTemplateId"
          label="DNS Template"
          useItem={refApis.dnsTemplates.useItem}
          getLabel={dnsTemplateLabel}
          picker={DnsTemplatePicker}
        />
        <FirewallRulesField />
        <SelectField<LaunchProfileFormValues> name="sslMode" label="SSL Mode" required options={SSL_OPTIONS} />
        <CheckField<LaunchProfileFormValues> name="tls13" label="TLS 1.3" />
      </Section>

      <Section title="Search engine">
        <ProfileRefField
          name="yandexWebmasterAccountId"
          label="Yandex Webmaster Account"
          useItem={refApis.yandexAccounts.useItem}
          getLabel={yandexWebmasterAccountLabel}
          picker={YandexWebmasterAccountPicker}
        />
        <ProfileRefField
          name="googleSearchAccountId"
          label="Google Account"
          useItem={refApis.googleAccounts.useItem}
          getLabel={googleSearchAccountLabel}
          picker={GoogleSearchAccountPicker}
        />
      </Section>
    </>
  );
}

export function LaunchProfileFormPage() {
  const { id } = useParams();
  return (
    <FormView<LaunchProfile, LaunchProfileFormValues, LaunchProfileInput>
      entity="Launch Profile"
      resource={launchProfilesApi}
      schema={LaunchProfileInputSchema as never}
      id={id}
      defaultValues={NEW_PROFILE}
      toValues={toProfileValues}
      paths={launchProfilePaths}
    >
      {({ item }) => <ProfileFields item={item} />}
    </FormView>
  );
}
