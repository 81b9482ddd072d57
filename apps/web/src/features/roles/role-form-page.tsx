import { useParams } from 'react-router';
import { RoleInputSchema, type Role, type RoleInput } from '@fleetdesk/contract';
import { StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { rolePaths, rolesApi, type RoleFormValues } from './roles-api.ts';
import { RulesField } from './rules-field.tsx';

export function RoleFormPage() {
  const { id } = useParams();
  return (
    <FormView<Role, RoleFormValues, RoleInput>
      entity="Role"
      resource={rolesApi}
      schema={RoleInputSchema as never}
      id={id}
      defaultValues={{ name: '', rules: [] }}
      toValues={(role) => ({ name: role.name, rules: role.rules })}
      paths={rolePaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.roleNo} />}
          <TextField<RoleFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <RulesField />
        </>
      )}
    </FormView>
  );
}
