import { useParams } from 'react-router';
import {
  COUNTRIES,
  DomainRegistratorContactInputSchema,
  type DomainRegistratorContact,
  type DomainRegistratorContactInput,
} from '@fleetdesk/contract';
import { SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { contactPaths, contactsApi, type ContactFormValues } from './contacts-api.ts';

const COUNTRY_OPTIONS = COUNTRIES.map(([code, name]) => ({ value: code, label: `${name} (${code})` }));

const EMPTY: ContactFormValues = {
  name: '',
  firstName: '',
  lastName: '',
  address1: '',
  city: '',
  state: '',
  postalCode: '',
  country: '',
  phone: '',
  email: '',
};

export function ContactFormPage() {
  const { id } = useParams();
  return (
    <FormView<DomainRegistratorContact, ContactFormValues, DomainRegistratorContactInput>
      entity="Contact"
      resource={contactsApi}
      schema={DomainRegistratorContactInputSchema as never}
      id={id}
      defaultValues={EMPTY}
      toValues={(c) => ({
        name: c.name,
        firstName: c.firstName ?? '',
        lastName: c.lastName ?? '',
        address1: c.address1 ?? '',
        city: c.city ?? '',
        state: c.state ?? '',
        postalCode: c.postalCode ?? '',
        country: c.country ?? '',
        phone: c.phone ?? '',
        email: c.email ?? '',
      })}
      paths={contactPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.domainRegistratorContactNo} />}
          <TextField<ContactFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <div className="row">
            <div className="col-sm-6">
              <TextField<ContactFormValues> name="firstName" label="First Name" maxLength={200} />
            </div>
            <div className="col-sm-6">
              <TextField<ContactFormValues> name="lastName" label="Last Name" maxLength={200} />
            </div>
          </div>
          <TextField<ContactFormValues> name="address1" label="Address" maxLength={500} />
          <div className="row">
            <div className="col-sm-6">
              <TextField<ContactFormValues> name="city" label="City" maxLength={200} />
            </div>
            <div className="col-sm-6">
              <TextField<ContactFormValues> name="state" label="State / Province" maxLength={200} />
            </div>
          </div>
          <div className="row">
            <div className="col-sm-6">
              <TextField<ContactFormValues> name="postalCode" label="Postal Code" maxLength={50} />
            </div>
            <div className="col-sm-6">
              <SelectField<ContactFormValues>
                name="country"
                label="Country"
                options={COUNTRY_OPTIONS}
                emptyOption="Select a country"
              />
            </div>
          </div>
          <TextField<ContactFormValues>
            name="phone"
            label="Phone"
            type="text"
            placeholder="+NNN.NNNNNNNNNN"
            help="In Namecheap's form: +country code, a dot, then the number (e.g. +1.2175550100)."
            maxLength={20}
          />
          <TextField<ContactFormValues> name="email" label="Email" type="email" maxLength={254} />
        </>
      )}
    </FormView>
  );
}
