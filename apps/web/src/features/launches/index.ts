import { createElement } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { LaunchBatchNewPage } from './launch-batch-new-page.tsx';
import { LaunchBatchPage } from './launch-batch-page.tsx';
import { LaunchNewPage } from './launch-new-page.tsx';
import { LaunchPage } from './launch-page.tsx';
import { LaunchesListPage } from './launches-list-page.tsx';

/**
 * /launches (every launch and batch), /launches/new (the form and its live plan), /launches/{id} (the timeline),
 * /launches/batches/new (many names), /launches/batches/{id} (a batch's names).
 */
export const launchesRoutes: RouteObject[] = [
  { path: 'launches', element: createElement(LaunchesListPage) },
  { path: 'launches/new', element: createElement(LaunchNewPage) },
  // The breadcrumb's parent: batches are listed on the launches page.
  { path: 'launches/batches', element: createElement(Navigate, { to: '/launches', replace: true }) },
  { path: 'launches/batches/new', element: createElement(LaunchBatchNewPage) },
  { path: 'launches/batches/:id', element: createElement(LaunchBatchPage) },
  { path: 'launches/:id', element: createElement(LaunchPage) },
];
