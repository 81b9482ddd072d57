import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { DomainRegistratorDeletePage } from './domain-registrator-delete-page.tsx';
import { DomainRegistratorFormPage } from './domain-registrator-form-page.tsx';
import { DomainRegistratorsPage } from './domain-registrators-page.tsx';
import { RegistratorDomainsPage } from './registrator-domains-page.tsx';

export const domainRegistratorRoutes: RouteObject[] = [
  ...crudRoutes('domain-registrators', {
    list: createElement(DomainRegistratorsPage),
    form: createElement(DomainRegistratorFormPage),
    delete: createElement(DomainRegistratorDeletePage),
  }),
  { path: 'domain-registrators/:id/domains', element: createElement(RegistratorDomainsPage) },
];
