import { useParams } from 'react-router';
import {
  PASSWORD_MIN,
  STATUSES,
  UserInputSchema,
  UserUpdateInputSchema,
  type User,
  type UserInput,
} from '@fleetdesk/contract';
import { SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { formatLocalDateTime } from '../../lib/format.ts';
import { RolesField } from './roles-field.tsx';
import { UserIdentitiesField } from './user-identities.tsx';
import { UserTokensField } from './user-tokens.tsx';
import { UserTwoFactorField } from './user-two-factor.tsx';
import { userPaths, usersApi, type UserFormValues } from './users-api.ts';

const STATUS_OPTIONS = STATUSES.map((status) => ({ value: status, label: status }));

export function UserFormPage() {
  const { id } = useParams();
  // On edit every field is optional and an empty password keeps the current one.
  const schema = (id ? UserUpdateInputSchema : UserInputSchema) as unknown as typeof UserInputSchema;
  return (
    <FormView<User, UserFormValues, UserInput>
      entity="User"
      resource={usersApi}
      schema={schema as never}
      id={id}
      defaultValues={{ username: '', name: '', email: '', password: '', status: 'active', roles: [] }}
      toValues={(user) => ({
        username: user.username,
        name: user.name,
        email: user.email,
        password: '',
        status: user.status,
        roles: user.userRoles.map((r) => r.roleId),
      })}
      paths={userPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.userNo} />}
          <TextField<UserFormValues> name="username" label="Username" required maxLength={100} autoFocus />
          <TextField<UserFormValues> name="name" label="Name" required maxLength={200} />
          <TextField<UserFormValues> name="email" label="Email" type="email" required maxLength={254} />
          <TextField<UserFormValues>
            name="password"
            label="Password"
            type="password"
            autoComplete="new-password"
            required={!item}
            help={
              item
                ? `Leave empty to keep the current password. A new one must be at least ${PASSWORD_MIN} characters.`
                : `At least ${PASSWORD_MIN} characters.`
            }
          />
          <SelectField<UserFormValues> name="status" label="Status" required options={STATUS_OPTIONS} />
          <RolesField initial={item?.userRoles ?? []} />
          {item && (
            <>
              <StaticField label="Created" value={formatLocalDateTime(item.dateCreated)} />
              <StaticField label="Last Login" value={formatLocalDateTime(item.dateLastLogin)} />
              <UserTwoFactorField userId={item._id} />
              <UserIdentitiesField userId={item._id} />
              <UserTokensField userId={item._id} />
            </>
          )}
        </>
      )}
    </FormView>
  );
}
