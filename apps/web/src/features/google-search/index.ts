import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { GoogleAccountDeletePage, GoogleAccountFormPage, GoogleAccountListPage } from './account-pages.tsx';

export const googleSearchRoutes: RouteObject[] = [
  { path: 'google-search', element: createElement(GoogleAccountListPage) },
  { path: 'google-search/create-account', element: createElement(GoogleAccountFormPage) },
  { path: 'google-search/accounts/:id', element: createElement(GoogleAccountFormPage) },
  { path: 'google-search/accounts/:id/delete', element: createElement(GoogleAccountDeletePage) },
];
