import { useParams } from 'react-router';
import { RoleInputSchema, type Role, type RoleInput } from '@fleetdesk/contract';
import { CheckField, StaticField, TextField } from '../../components/form-fields.tsx';
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
      defaultValues={{ name: '', rules: [], requireTwoFactor: false, tokensWithoutExpiry: false }}
      toValues={(role) => ({
        name: role.name,
        rules: role.rules,
        requireTwoFactor: role.requireTwoFactor,
        tokensWithoutExpiry: role.tokensWithoutExpiry,
      })}
      paths={rolePaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.roleNo} />}
          <TextField<RoleFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <RulesField />
          <CheckField<RoleFormValues>
            name="requireTwoFactor"
            label="Require two-factor sign-in"
            help="Its users are asked to set up a code app at their next sign-in and can do nothing else until they have. Single sign-on asks for the code too, unless the provider reports a second factor of its own and the console is set to trust it."
          />
          <CheckField<RoleFormValues> name="tokensWithoutExpiry" label="Allow API tokens without an expiry" />
        </>
      )}
    </FormView>
  );
}
