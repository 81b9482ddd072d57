import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { RoleDeletePage } from './role-delete-page.tsx';
import { RoleFormPage } from './role-form-page.tsx';
import { RoleListPage } from './role-list-page.tsx';

export const roleRoutes: RouteObject[] = crudRoutes('roles', {
  list: createElement(RoleListPage),
  form: createElement(RoleFormPage),
  delete: createElement(RoleDeletePage),
});
