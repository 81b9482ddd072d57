import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { SessionListPage } from './session-list-page.tsx';

export const sessionRoutes: RouteObject[] = [{ path: 'sessions', element: createElement(SessionListPage) }];
