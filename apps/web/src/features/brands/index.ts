import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { BrandDeletePage } from './brand-delete-page.tsx';
import { BrandFormPage } from './brand-form-page.tsx';
import { BrandListPage } from './brand-list-page.tsx';

export const brandRoutes: RouteObject[] = crudRoutes('brands', {
  list: createElement(BrandListPage),
  form: createElement(BrandFormPage),
  delete: createElement(BrandDeletePage),
});
