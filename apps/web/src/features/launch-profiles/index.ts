import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { LaunchProfileDeletePage } from './launch-profile-delete-page.tsx';
import { LaunchProfileFormPage } from './launch-profile-form-page.tsx';
import { LaunchProfileListPage } from './launch-profile-list-page.tsx';

export const launchProfileRoutes: RouteObject[] = crudRoutes('launch-profiles', {
  list: createElement(LaunchProfileListPage),
  form: createElement(LaunchProfileFormPage),
  delete: createElement(LaunchProfileDeletePage),
});
