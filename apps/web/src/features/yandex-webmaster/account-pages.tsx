import { useParams } from 'react-router';
import { Link } from 'react-router';
import Dropdown from 'react-bootstrap/Dropdown';
import { useFormContext, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { SECRET_MASK, YandexWebmasterAccountInputSchema, type YandexWebmasterAccount } from '@fleetdesk/contract';
import { DeleteView } from '../../components/delete-view.tsx';
import { CheckField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { ListView, type InUseColumn } from '../../components/list-view.tsx';
import { accountsApi, webmasterPaths, type AccountFormValues } from './yandex-webmaster-api.ts';

const columns: Column<YandexWebmasterAccount>[] = [
  { header: '№', render: (a) => a.yandexWebmasterAccountNo, width: '6rem' },
  { header: 'Name', render: (a) => a.name },
];
const inUse: InUseColumn<YandexWebmasterAccount> = {
  params: ['checkInUseBrandId', 'checkInUseBrandIdDomainId'],
  isInUse: (a) => a.isInUseBrandId,
};

export function AccountListPage() {
  return (
    <ListView
      title="Yandex Webmaster Accounts"
      useList={accountsApi.useList}
      columns={columns}
      createLink={{ to: webmasterPaths.create, label: 'Create Account' }}
      rowHref={(a) => webmasterPaths.edit(a._id)}
      inUse={inUse}
    />
  );
}

/** The Account actions menu of the spec: Hosts, Create Host, Delete Account. */
export function AccountActionsMenu({ id }: { id: string }) {
  return (
    <Dropdown>
      <Dropdown.Toggle variant="outline-primary" id="account-actions-menu">
        Account Actions
      </Dropdown.Toggle>
      <Dropdown.Menu>
        <Dropdown.Item as={Link} to={webmasterPaths.hosts(id)}>
          Hosts
        </Dropdown.Item>
        <Dropdown.Item as={Link} to={webmasterPaths.createHost(id)}>
          Create Host
        </Dropdown.Item>
        <Dropdown.Item as={Link} to={webmasterPaths.delete(id)} className="text-danger">
          Delete Account
        </Dropdown.Item>
      </Dropdown.Menu>
    </Dropdown>
  );
}

// Unticked "Change Api Token" sends no token at all, so the stored one is kept (spec §4).
const FormSchema = z.preprocess((v) => {
  const { changeApiToken, apiToken, name } = (v ?? {}) as Partial<AccountFormValues>;
  return changeApiToken === false ? { name } : { name, apiToken: apiToken === SECRET_MASK ? undefined : apiToken };
}, YandexWebmasterAccountInputSchema);

function TokenField({ editing }: { editing: boolean }) {
  const { control } = useFormContext<AccountFormValues>();
  const unlocked = useWatch({ control, name: 'changeApiToken' });
  return (
    <>
      {editing && <CheckField<AccountFormValues> name="changeApiToken" label="Change Api Token" />}
      <TextField<AccountFormValues>
        name="apiToken"
        label="Api Token"
        type="password"
        autoComplete="new-password"
        maxLength={1000}
        disabled={editing && !unlocked}
        help={
          editing && !unlocked
            ? 'Tick Change Api Token to replace the stored token.'
            : 'The OAuth token of the Yandex account.'
        }
      />
    </>
  );
}

export function AccountFormPage() {
  const { id } = useParams();
  return (
    <FormView<YandexWebmasterAccount, AccountFormValues, z.infer<typeof YandexWebmasterAccountInputSchema>>
      entity="Yandex Webmaster Account"
      resource={accountsApi}
      schema={FormSchema as never}
      id={id}
      defaultValues={{ name: '', changeApiToken: true, apiToken: '' }}
      toValues={(a) => ({ name: a.name, changeApiToken: false, apiToken: a.apiToken ? SECRET_MASK : '' })}
      paths={{ edit: webmasterPaths.edit, list: webmasterPaths.list }}
      hideDelete
      history="yandex-webmaster"
      actions={(a) => <AccountActionsMenu id={a._id} />}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.yandexWebmasterAccountNo} />}
          <TextField<AccountFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <TokenField editing={Boolean(item)} />
        </>
      )}
    </FormView>
  );
}

export function AccountDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Yandex Webmaster Account"
      id={id}
      useRemove={accountsApi.useRemove}
      doneTo={webmasterPaths.list}
      cancelTo={webmasterPaths.edit(id)}
    />
  );
}
