import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { AuditLogPage } from './audit-log-page.tsx';

export const auditLogRoutes: RouteObject[] = [{ path: 'audit-log', element: createElement(AuditLogPage) }];
