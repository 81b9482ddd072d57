import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { DomainDeletePage } from './domain-delete-page.tsx';
import { DomainFirewallRulesPage } from './domain-firewall-rules-page.tsx';
import { DomainFormPage } from './domain-form-page.tsx';
import { DomainListPage } from './domain-list-page.tsx';
import { DomainParsingPage } from './domain-parsing-page.tsx';
import { DomainRegisterPage } from './domain-register-page.tsx';

/**
 * /domains, create, edit (tabs in ?tab=), delete, Setup WAF, and the action routes that later issues build
 * (each says which until then). A later issue's own route for the same path is more specific or listed first
 * in the router, and replaces the note.
 */
export const domainRoutes: RouteObject[] = [
  ...crudRoutes('domains', {
    list: createElement(DomainListPage),
    form: createElement(DomainFormPage),
    delete: createElement(DomainDeletePage),
  }),
  { path: 'domains/:id/firewall-rules', element: createElement(DomainFirewallRulesPage) },
  { path: 'domains/:id/register', element: createElement(DomainRegisterPage) },
  { path: 'domains/:id/parsing', element: createElement(DomainParsingPage) },
];
