import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { AlertsPage } from './alerts-page.tsx';

export const alertsRoutes: RouteObject[] = [{ path: 'alerts', element: createElement(AlertsPage) }];
