import { createElement } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { ContactDeletePage } from './contact-delete-page.tsx';
import { ContactFormPage } from './contact-form-page.tsx';
import { CONTACTS_TAB } from './contacts-api.ts';

// The contacts' list is the registrators' Contacts tab; its own path leads there.
export const domainRegistratorContactRoutes: RouteObject[] = crudRoutes('domain-registrators-contacts', {
  list: createElement(Navigate, { to: CONTACTS_TAB, replace: true }),
  form: createElement(ContactFormPage),
  delete: createElement(ContactDeletePage),
});
