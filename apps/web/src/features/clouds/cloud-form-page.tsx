import { useParams } from 'react-router';
import { CloudInputSchema, type Cloud, type CloudInput, type Ref } from '@fleetdesk/contract';
import { StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { PickerFormField } from '../../components/picker-form-field.tsx';
import { RegionPicker, regionLabel } from '../../components/pickers/region-picker.tsx';
import { SecretField, secretFormValue } from '../../components/secret-field.tsx';
import { cloudPaths, cloudsApi, type CloudFormValues } from './clouds-api.ts';

const SECRETS = [
  { name: 'password', label: 'Password' },
  { name: 'token', label: 'Token' },
  { name: 'globalAPIKey', label: 'Global API Key' },
  { name: 'emailPassword', label: 'Email Password' },
] as const;

export function CloudFormPage() {
  const { id } = useParams();
  return (
    <FormView<Cloud, CloudFormValues, CloudInput>
      entity="Cloud"
      resource={cloudsApi}
      schema={CloudInputSchema as never}
      id={id}
      defaultValues={{
        email: '',
        password: '',
        token: '',
        globalAPIKey: '',
        emailPassword: '',
        proxyRegionId: null,
        accountId: '',
      }}
      toValues={(cloud) => ({
        email: cloud.email,
        password: secretFormValue(cloud.password),
        token: secretFormValue(cloud.token),
        globalAPIKey: secretFormValue(cloud.globalAPIKey),
        emailPassword: secretFormValue(cloud.emailPassword),
        proxyRegionId: cloud.proxyRegion?._id ?? null,
        accountId: cloud.accountId ?? '',
      })}
      paths={cloudPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.cloudNo} />}
          <TextField<CloudFormValues>
            name="email"
            label="Email"
            type="email"
            required
            maxLength={320}
            autoComplete="off"
            autoFocus
          />
          {SECRETS.map((secret) => (
            <SecretField<CloudFormValues>
              key={secret.name}
              name={secret.name}
              label={secret.label}
              maxLength={4096}
              reveal={item && { resource: 'clouds', id: item._id }}
            />
          ))}
          <PickerFormField<Ref, CloudFormValues>
            name="proxyRegionId"
            label="Proxy Region"
            getLabel={regionLabel}
            picker={RegionPicker}
            initial={item?.proxyRegion}
          />
          <TextField<CloudFormValues>
            name="accountId"
            label="Cloudflare Account ID"
            maxLength={32}
            autoComplete="off"
            help="Found automatically from the credentials. Set it for an account-owned API token, which cannot list accounts."
          />
        </>
      )}
    </FormView>
  );
}
