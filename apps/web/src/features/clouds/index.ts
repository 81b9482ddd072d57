import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { CloudDeletePage } from './cloud-delete-page.tsx';
import { CloudFormPage } from './cloud-form-page.tsx';
import { CloudListPage } from './cloud-list-page.tsx';

export const cloudRoutes: RouteObject[] = crudRoutes('clouds', {
  list: createElement(CloudListPage),
  form: createElement(CloudFormPage),
  delete: createElement(CloudDeletePage),
});
