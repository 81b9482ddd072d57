import { createElement } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { ImportNewPage } from './import-new-page.tsx';
import { ImportPage } from './import-page.tsx';
import { ImportsListPage } from './imports-list-page.tsx';
import { ZoneExportPage } from './zone-export-page.tsx';

/** /imports (every import), /imports/new (choose a source), /imports/{id} (its plan, then its run),
 * /imports/zone-export/{jobId} (a selection's zone files as a zip). */
export const importsRoutes: RouteObject[] = [
  { path: 'imports', element: createElement(ImportsListPage) },
  { path: 'imports/new', element: createElement(ImportNewPage) },
  // The breadcrumb's parent: exports are jobs, so it leads to the exports among the jobs (not to every job).
  {
    path: 'imports/zone-export',
    element: createElement(Navigate, { to: '/jobs?kind=zone-files.export', replace: true }),
  },
  { path: 'imports/zone-export/:id', element: createElement(ZoneExportPage) },
  { path: 'imports/:id', element: createElement(ImportPage) },
];
