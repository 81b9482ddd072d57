import { useParams } from 'react-router';
import { useFormContext, useWatch } from 'react-hook-form';
import {
  REGISTRATOR_TYPES,
  SECRET_MASK,
  type DomainRegistrator,
  type DomainRegistratorInput,
} from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import {
  CreateRegistratorSchema,
  EditRegistratorSchema,
  domainRegistratorPaths,
  domainRegistratorsApi,
  type DomainRegistratorFormValues,
} from './domain-registrators-api.ts';
import { EndpointField } from './endpoint-field.tsx';
import { registrarPaths } from './registrar-api.ts';
import { LinkButton } from '../../components/link-button.tsx';

const TYPE_OPTIONS = REGISTRATOR_TYPES.map((type) => ({ value: type, label: type }));

function CredentialsFields({ editing, hasKey }: { editing: boolean; hasKey: boolean }) {
  const { control } = useFormContext<DomainRegistratorFormValues>();
  const unlocked = useWatch({ control, name: 'updateCredentials' });
  const locked = editing && !unlocked;
  return (
    <fieldset className="border rounded p-3 mb-3">
      <legend className="float-none w-auto fs-6 px-2 mb-0">Credentials</legend>
      {editing && <CheckField<DomainRegistratorFormValues> name="updateCredentials" label="Update credentials" />}
      <fieldset disabled={locked}>
        <EndpointField disabled={locked} />
        <TextField<DomainRegistratorFormValues>
          name="credentials.apiUsername"
          label="API Username"
          required
          maxLength={100}
          autoComplete="off"
        />
        <TextField<DomainRegistratorFormValues>
          name="credentials.apiKey"
          label="API Key"
          type="password"
          autoComplete="new-password"
          maxLength={200}
          help={hasKey ? 'Leave the masked value to keep the stored key.' : undefined}
        />
      </fieldset>
    </fieldset>
  );
}

export function DomainRegistratorFormPage() {
  const { id } = useParams();
  return (
    <FormView<DomainRegistrator, DomainRegistratorFormValues, DomainRegistratorInput>
      entity="Domain Registrator"
      resource={domainRegistratorsApi}
      schema={(id ? EditRegistratorSchema : CreateRegistratorSchema) as never}
      id={id}
      defaultValues={{
        name: '',
        type: 'namecheap',
        updateCredentials: true,
        credentials: { endpointUrl: '', apiUsername: '', apiKey: '' },
      }}
      toValues={(r) => ({
        name: r.name,
        type: r.type,
        updateCredentials: false,
        credentials: {
          endpointUrl: r.credentials.endpointUrl,
          apiUsername: r.credentials.apiUsername,
          apiKey: r.credentials.apiKey ? SECRET_MASK : '',
        },
      })}
      paths={domainRegistratorPaths}
      actions={(item) => (
        <LinkButton to={registrarPaths.domains(item._id)} variant="outline-secondary">
          Domains
        </LinkButton>
      )}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.domainRegistratorNo} />}
          <TextField<DomainRegistratorFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <SelectField<DomainRegistratorFormValues>
            name="type"
            label="Type"
            required
            options={TYPE_OPTIONS}
            disabled={Boolean(item)}
            help={item ? 'The type can be set only on create.' : undefined}
          />
          <CredentialsFields editing={Boolean(item)} hasKey={Boolean(item?.credentials.apiKey)} />
        </>
      )}
    </FormView>
  );
}
