import { useParams } from 'react-router';
import { useFormContext, useWatch } from 'react-hook-form';
import { z } from 'zod';
import {
  GOOGLE_KEY_MAX_CHARS,
  GoogleSearchAccountInputSchema,
  SECRET_MASK,
  type GoogleSearchAccount,
} from '@fleetdesk/contract';
import { DeleteView } from '../../components/delete-view.tsx';
import { CheckField, StaticField, TextAreaField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { ListView } from '../../components/list-view.tsx';
import Alert from 'react-bootstrap/Alert';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import { errorMessage } from '../../lib/api-error.ts';
import {
  googleAccountsApi,
  googlePaths,
  permissionLabel,
  useAccountSites,
  type GoogleAccountFormValues,
} from './google-search-api.ts';

const columns: Column<GoogleSearchAccount>[] = [
  { header: '№', render: (a) => a.googleSearchAccountNo, width: '6rem' },
  { header: 'Name', render: (a) => a.name, primary: true },
  { header: 'Service account', render: (a) => <span className="text-break">{a.clientEmail}</span> },
  { header: 'Project', render: (a) => a.projectId ?? '' },
];

export function GoogleAccountListPage() {
  return (
    <ListView
      title="Google Search Console Accounts"
      useList={googleAccountsApi.useList}
      columns={columns}
      createLink={{ to: googlePaths.create, label: 'Create Account' }}
      rowHref={(a) => googlePaths.edit(a._id)}
    />
  );
}

// Unticked "Change key" sends no key at all, so the stored one is kept; it is never shown again.
const FormSchema = z.preprocess((v) => {
  const { changeKey, serviceAccountKey, name } = (v ?? {}) as Partial<GoogleAccountFormValues>;
  return changeKey === false ? { name } : { name, serviceAccountKey: serviceAccountKey || undefined };
}, GoogleSearchAccountInputSchema);

function KeyField({ editing }: { editing: boolean }) {
  const { control } = useFormContext<GoogleAccountFormValues>();
  const unlocked = useWatch({ control, name: 'changeKey' });
  return (
    <>
      {editing && <CheckField<GoogleAccountFormValues> name="changeKey" label="Change key" />}
      <TextAreaField<GoogleAccountFormValues>
        name="serviceAccountKey"
        label="Service account key (JSON)"
        rows={editing && !unlocked ? 2 : 8}
        inputClassName="font-monospace small"
        spellCheck={false}
        maxLength={GOOGLE_KEY_MAX_CHARS}
        disabled={editing && !unlocked}
        help={
          editing && !unlocked
            ? 'The key is stored encrypted and never shown again. Tick Change key to replace it.'
            : 'Paste the JSON key file of a Google Cloud service account. It is checked with Google on save.'
        }
      />
    </>
  );
}

/** What Google lists for the account's service account: its properties and its permission on each. */
function AccountSites({ id }: { id: string }) {
  const q = useAccountSites(id);
  return (
    <section className="mt-4" data-testid="google-account-sites">
      <h2 className="h6">Properties in Search Console</h2>
      {q.isPending ? (
        <Spinner animation="border" size="sm" />
      ) : q.isError ? (
        <Alert variant="danger">{errorMessage(q.error)}</Alert>
      ) : !q.data.length ? (
        <p className="text-body-secondary small">
          None yet: add a property from a domain's Google tab, or add the service account as a user of a property in
          Search Console.
        </p>
      ) : (
        <Table size="sm">
          <thead>
            <tr>
              <th>Property</th>
              <th>Permission</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((site) => (
              <tr key={site.siteUrl}>
                <td className="text-break">{site.siteUrl}</td>
                <td>{permissionLabel(site.permissionLevel)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

export function GoogleAccountFormPage() {
  const { id } = useParams();
  return (
    <>
      <FormView<GoogleSearchAccount, GoogleAccountFormValues, z.infer<typeof GoogleSearchAccountInputSchema>>
        entity="Google Account"
        resource={googleAccountsApi}
        schema={FormSchema as never}
        id={id}
        defaultValues={{ name: '', changeKey: true, serviceAccountKey: '' }}
        toValues={(a) => ({
          name: a.name,
          changeKey: false,
          serviceAccountKey: a.serviceAccountKey ? SECRET_MASK : '',
        })}
        paths={{ edit: googlePaths.edit, list: googlePaths.list, delete: googlePaths.delete }}
        history="google-search"
      >
        {({ item }) => (
          <>
            {item && <StaticField label="№" value={item.googleSearchAccountNo} />}
            <TextField<GoogleAccountFormValues> name="name" label="Name" required maxLength={200} autoFocus />
            {item && <StaticField label="Service account" value={item.clientEmail} />}
            {item && <StaticField label="Project" value={item.projectId ?? '—'} />}
            <KeyField editing={Boolean(item)} />
          </>
        )}
      </FormView>
      {id && <AccountSites id={id} />}
    </>
  );
}

export function GoogleAccountDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Google Account"
      id={id}
      useRemove={googleAccountsApi.useRemove}
      doneTo={googlePaths.list}
      cancelTo={googlePaths.edit(id)}
    />
  );
}
