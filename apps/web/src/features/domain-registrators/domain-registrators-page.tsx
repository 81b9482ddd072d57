import Tab from 'react-bootstrap/Tab';
import type { DomainRegistrator, DomainRegistratorContact } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { formatText } from '../../lib/format.ts';
import {
  contactPaths,
  contactsListApi,
  domainRegistratorPaths,
  domainRegistratorsApi,
  endpointLabel,
} from './domain-registrators-api.ts';

const registratorColumns: Column<DomainRegistrator>[] = [
  { header: '№', render: (r) => r.domainRegistratorNo, width: '6rem' },
  { header: 'Name', render: (r) => r.name },
  { header: 'Type', render: (r) => r.type },
  { header: 'Endpoint', render: (r) => endpointLabel(r.credentials.endpointUrl) },
  { header: 'API Username', render: (r) => r.credentials.apiUsername },
];

const contactColumns: Column<DomainRegistratorContact>[] = [
  { header: '№', render: (c) => c.domainRegistratorContactNo, width: '6rem' },
  { header: 'Name', render: (c) => c.name },
  { header: 'Email', render: (c) => formatText(c.email) },
  { header: 'Phone', render: (c) => formatText(c.phone) },
  { header: 'Country', render: (c) => formatText(c.country), width: '6rem' },
];

/** /domain-registrators with the tabs List and Contacts (?tab=contacts). */
export function DomainRegistratorsPage() {
  return (
    <QueryTabs
      defaultActiveKey="list"
      resetParams={['page', 'search']}
      mountOnEnter
      unmountOnExit
      id="domain-registrators-tabs"
    >
      <Tab eventKey="list" title="List">
        <ListView
          title="Domain Registrators"
          useList={domainRegistratorsApi.useList}
          loadFailedText={domainRegistratorsApi.fallbacks.load}
          columns={registratorColumns}
          createLink={{ to: domainRegistratorPaths.create, label: 'Create Domain Registrator' }}
          rowHref={(r) => domainRegistratorPaths.edit(r._id)}
        />
      </Tab>
      <Tab eventKey="contacts" title="Contacts">
        <ListView
          title="Contacts"
          useList={contactsListApi.useList}
          loadFailedText={contactsListApi.fallbacks.load}
          columns={contactColumns}
          createLink={{ to: contactPaths.create, label: 'Create Contact' }}
          rowHref={(c) => contactPaths.edit(c._id)}
        />
      </Tab>
    </QueryTabs>
  );
}
