import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { DomainListPage } from './domain-list-page.tsx';

/**
 * /domains, create, edit (tabs in ?tab=), delete, Setup WAF, and the action routes that later issues build
 * (each says which until then). A later issue's own route for the same path is more specific or listed first
 * in the router, and replaces the note. The list comes with the area (the first visit's page); every other
 * screen loads when opened, so /domains does without the form library, zod and the other areas' tabs
 * (decision 048).
 */
export const domainRoutes: RouteObject[] = [
  { path: 'domains', element: createElement(DomainListPage) },
  {
    path: 'domains/create',
    lazy: async () => ({ Component: (await import('./domain-form-page.tsx')).DomainFormPage }),
  },
  {
    path: 'domains/:id',
    lazy: async () => ({ Component: (await import('./domain-form-page.tsx')).DomainFormPage }),
  },
  {
    path: 'domains/:id/delete',
    lazy: async () => ({ Component: (await import('./domain-delete-page.tsx')).DomainDeletePage }),
  },
  {
    path: 'domains/:id/firewall-rules',
    lazy: async () => ({ Component: (await import('./domain-firewall-rules-page.tsx')).DomainFirewallRulesPage }),
  },
  {
    path: 'domains/:id/register',
    lazy: async () => ({ Component: (await import('./domain-register-page.tsx')).DomainRegisterPage }),
  },
  {
    path: 'domains/:id/parsing',
    lazy: async () => ({ Component: (await import('./domain-parsing-page.tsx')).DomainParsingPage }),
  },
];
