import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { RegionDeletePage } from './region-delete-page.tsx';
import { RegionFormPage } from './region-form-page.tsx';
import { RegionListPage } from './region-list-page.tsx';

export const regionRoutes: RouteObject[] = crudRoutes('regions', {
  list: createElement(RegionListPage),
  form: createElement(RegionFormPage),
  delete: createElement(RegionDeletePage),
});
