import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { UserDeletePage } from './user-delete-page.tsx';
import { UserFormPage } from './user-form-page.tsx';
import { UserListPage } from './user-list-page.tsx';

export const userRoutes: RouteObject[] = crudRoutes('users', {
  list: createElement(UserListPage),
  form: createElement(UserFormPage),
  delete: createElement(UserDeletePage),
});
