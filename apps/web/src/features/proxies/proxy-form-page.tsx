import { useParams } from 'react-router';
import { PROXY_TYPES, type Proxy, type Ref } from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { PickerFormField } from '../../components/picker-form-field.tsx';
import { RegionPicker, regionLabel } from '../../components/pickers/region-picker.tsx';
import { SecretField, secretFormValue } from '../../components/secret-field.tsx';
import { ProxyCheckPanel } from './proxy-check-panel.tsx';
import { ProxyFormSchema, proxiesApi, proxyPaths, type ProxyFormValues, type ProxyWireInput } from './proxies-api.ts';

const TYPE_OPTIONS = PROXY_TYPES.map((type) => ({ value: type, label: type }));

export function ProxyFormPage() {
  const { id } = useParams();
  return (
    <FormView<Proxy, ProxyFormValues, ProxyWireInput>
      entity="Proxy"
      resource={proxiesApi}
      schema={ProxyFormSchema as never}
      id={id}
      defaultValues={{
        isHttps: false,
        IPAddress: '',
        httpPort: null,
        username: '',
        password: '',
        regionId: null,
        proxyType: '',
      }}
      toValues={(proxy) => ({
        isHttps: proxy.isHttps,
        IPAddress: proxy.IPAddress ?? '',
        httpPort: proxy.httpPort,
        username: proxy.username ?? '',
        password: secretFormValue(proxy.password),
        regionId: proxy.region?._id ?? null,
        proxyType: proxy.proxyType ?? '',
      })}
      paths={proxyPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.proxyNo} />}
          <CheckField<ProxyFormValues> name="isHttps" label="HTTPS" help="An http proxy reached over TLS." />
          <TextField<ProxyFormValues>
            name="IPAddress"
            label="IP Address"
            maxLength={45}
            placeholder="203.0.113.10"
            autoComplete="off"
          />
          <TextField<ProxyFormValues>
            name="httpPort"
            label="Port"
            type="number"
            min={1}
            max={65535}
            step={1}
            placeholder="3128"
          />
          <TextField<ProxyFormValues> name="username" label="Username" maxLength={200} autoComplete="off" />
          <SecretField<ProxyFormValues>
            name="password"
            label="Password"
            maxLength={4096}
            reveal={item && { resource: 'proxies', id: item._id }}
          />
          <PickerFormField<Ref, ProxyFormValues>
            name="regionId"
            label="Region"
            getLabel={regionLabel}
            picker={RegionPicker}
            initial={item?.region}
          />
          <SelectField<ProxyFormValues> name="proxyType" label="Type" options={TYPE_OPTIONS} emptyOption="" />
          {item && <ProxyCheckPanel proxy={item} />}
        </>
      )}
    </FormView>
  );
}
