import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { FleetListPage } from './fleet-list-page.tsx';
import { FleetNewPage } from './fleet-new-page.tsx';
import { FleetPlanPage } from './fleet-plan-page.tsx';

/** /fleet (the plans), /fleet/new (an action for the domains list's selection), /fleet/{id} (a plan and its run). */
export const fleetRoutes: RouteObject[] = [
  { path: 'fleet', element: createElement(FleetListPage) },
  { path: 'fleet/new', element: createElement(FleetNewPage) },
  { path: 'fleet/:id', element: createElement(FleetPlanPage) },
];
