import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { ServerDeletePage } from './server-delete-page.tsx';
import { ServerFormPage } from './server-form-page.tsx';
import { ServerListPage } from './server-list-page.tsx';
import { ServerRsaKeyPage } from './server-rsa-key-page.tsx';
import { ServerTestConnectionPage } from './server-test-connection-page.tsx';

export const serverRoutes: RouteObject[] = [
  ...crudRoutes('servers', {
    list: createElement(ServerListPage),
    form: createElement(ServerFormPage),
    delete: createElement(ServerDeletePage),
  }),
  { path: 'servers/:id/rsa-key', element: createElement(ServerRsaKeyPage) },
  { path: 'servers/:id/test-connection', element: createElement(ServerTestConnectionPage) },
];
