import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { PlanRedirectPage } from './plan-redirect-page.tsx';

/** /plans/{id}: any plan by its id, opened on its kind's page. */
export const planRoutes: RouteObject[] = [{ path: 'plans/:id', element: createElement(PlanRedirectPage) }];
