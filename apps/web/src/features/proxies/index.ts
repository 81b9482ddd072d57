import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { ProxyDeletePage } from './proxy-delete-page.tsx';
import { ProxyFormPage } from './proxy-form-page.tsx';
import { ProxyListPage } from './proxy-list-page.tsx';

export const proxyRoutes: RouteObject[] = crudRoutes('proxies', {
  list: createElement(ProxyListPage),
  form: createElement(ProxyFormPage),
  delete: createElement(ProxyDeletePage),
});
