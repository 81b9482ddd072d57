import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { CONTACTS_TAB, contactPaths, contactsApi } from './contacts-api.ts';

/** After the delete, back to the registrators' Contacts tab. */
export function ContactDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Contact"
      id={id}
      useRemove={contactsApi.useRemove}
      doneTo={CONTACTS_TAB}
      cancelTo={contactPaths.edit(id)}
    />
  );
}
