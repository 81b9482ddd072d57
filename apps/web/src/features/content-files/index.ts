import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { ContentFilesPage } from './content-files-page.tsx';

/** /domains/{id}/edit-content-files: the domain's file manager (listed before the domains feature's notes). */
export const contentFilesRoutes: RouteObject[] = [
  { path: 'domains/:id/edit-content-files', element: createElement(ContentFilesPage) },
];
