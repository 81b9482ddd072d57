import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { AccountDeletePage, AccountFormPage, AccountListPage } from './account-pages.tsx';
import { HostPage } from './host-page.tsx';
import { CreateHostPage, HostDeletePage, HostsPage } from './hosts-pages.tsx';

export const yandexWebmasterRoutes: RouteObject[] = [
  { path: 'yandex-webmaster', element: createElement(AccountListPage) },
  { path: 'yandex-webmaster/create-account', element: createElement(AccountFormPage) },
  { path: 'yandex-webmaster/accounts/:id', element: createElement(AccountFormPage) },
  { path: 'yandex-webmaster/accounts/:id/delete', element: createElement(AccountDeletePage) },
  { path: 'yandex-webmaster/accounts/:id/hosts', element: createElement(HostsPage) },
  { path: 'yandex-webmaster/accounts/:id/create-host', element: createElement(CreateHostPage) },
  { path: 'yandex-webmaster/accounts/:id/hosts/:hostId', element: createElement(HostPage) },
  { path: 'yandex-webmaster/accounts/:id/hosts/:hostId/delete', element: createElement(HostDeletePage) },
];
export { DomainWebmasterTab } from './domain-webmaster-tab.tsx';
export { accountsApi } from './yandex-webmaster-api.ts';
