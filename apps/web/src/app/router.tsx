import { createBrowserRouter, type RouteObject } from 'react-router';
import { brandRoutes } from '../features/brands/index.ts';
import { regionRoutes } from '../features/regions/index.ts';
import { userRoutes } from '../features/users/index.ts';
import { roleRoutes } from '../features/roles/index.ts';
import { firewallRuleRoutes } from '../features/firewall-rules/index.ts';
import { domainRegistratorRoutes } from '../features/domain-registrators/index.ts';
import { domainRegistratorContactRoutes } from '../features/domain-registrators-contacts/index.ts';
import { auditLogRoutes } from '../features/audit-log/index.ts';
import { cloudRoutes } from '../features/clouds/index.ts';
import { proxyRoutes } from '../features/proxies/index.ts';
import { serverRoutes } from '../features/servers/index.ts';
import { cloudFlareRoutes } from '../features/cloud-flare/index.ts';
import { contentFilesRoutes } from '../features/content-files/index.ts';
import { domainRoutes } from '../features/domains/index.ts';
import { jobRoutes } from '../features/jobs/index.ts';
import { yandexWebmasterRoutes } from '../features/yandex-webmaster/index.ts';
import { fleetRoutes } from '../features/fleet/index.ts';
import { Layout } from './layout.tsx';
import { LoginPage } from './pages/login-page.tsx';
import { LogoutPage } from './pages/logout-page.tsx';
import { NotFoundPage } from './pages/not-found-page.tsx';
import { StartingPage } from './pages/starting-page.tsx';
import { RequireAuth } from './require-auth.tsx';
import { RouteError } from './route-error.tsx';

/**
 * Every feature's routes, relative to the root and all behind the auth guard.
 * A new feature exports `xxxRoutes: RouteObject[]` from its index.ts and is added here.
 */
export const featureRoutes: RouteObject[] = [
  ...fleetRoutes,
  ...brandRoutes,
  ...regionRoutes,
  ...userRoutes,
  ...roleRoutes,
  ...firewallRuleRoutes,
  ...domainRegistratorRoutes,
  ...domainRegistratorContactRoutes,
  ...auditLogRoutes,
  ...cloudRoutes,
  ...proxyRoutes,
  ...serverRoutes,
  ...cloudFlareRoutes,
  ...jobRoutes,
  ...yandexWebmasterRoutes,
  ...contentFilesRoutes,
  // Last: its notes for routes later issues build give way to their own routes listed above.
  ...domainRoutes,
];

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { path: 'login', element: <LoginPage /> },
      {
        element: <RequireAuth />,
        children: [
          { index: true, element: <StartingPage /> },
          { path: 'logout', element: <LogoutPage /> },
          ...featureRoutes,
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
