import { createBrowserRouter, type RouteObject } from 'react-router';
import { Layout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';
import { RouteError } from './route-error.tsx';

/**
 * A feature area: the first path segments it serves, and its routes, loaded when one of them is first opened.
 * A new feature joins with one line in `featureAreas` (its index.ts exports `xxxRoutes: RouteObject[]`).
 */
export type FeatureArea = { segments: string[]; load: () => Promise<RouteObject[]> };

/**
 * Every feature, in priority order: where two areas give the same path, the one listed first wins (domains is
 * last, so its notes for actions that later issues build give way to their own routes).
 */
export const featureAreas: FeatureArea[] = [
  { segments: ['brands'], load: () => import('../features/brands/index.ts').then((m) => m.brandRoutes) },
  { segments: ['regions'], load: () => import('../features/regions/index.ts').then((m) => m.regionRoutes) },
  { segments: ['users'], load: () => import('../features/users/index.ts').then((m) => m.userRoutes) },
  { segments: ['roles'], load: () => import('../features/roles/index.ts').then((m) => m.roleRoutes) },
  {
    segments: ['firewall-rules'],
    load: () => import('../features/firewall-rules/index.ts').then((m) => m.firewallRuleRoutes),
  },
  {
    segments: ['domain-registrators'],
    load: () => import('../features/domain-registrators/index.ts').then((m) => m.domainRegistratorRoutes),
  },
  {
    segments: ['domain-registrators-contacts'],
    load: () =>
      import('../features/domain-registrators-contacts/index.ts').then((m) => m.domainRegistratorContactRoutes),
  },
  { segments: ['audit-log'], load: () => import('../features/audit-log/index.ts').then((m) => m.auditLogRoutes) },
  { segments: ['clouds'], load: () => import('../features/clouds/index.ts').then((m) => m.cloudRoutes) },
  { segments: ['proxies'], load: () => import('../features/proxies/index.ts').then((m) => m.proxyRoutes) },
  { segments: ['servers'], load: () => import('../features/servers/index.ts').then((m) => m.serverRoutes) },
  {
    segments: ['domains'],
    load: () => import('../features/cloud-flare/index.ts').then((m) => m.cloudFlareRoutes),
  },
  { segments: ['jobs', 'domains'], load: () => import('../features/jobs/index.ts').then((m) => m.jobRoutes) },
  {
    segments: ['yandex-webmaster'],
    load: () => import('../features/yandex-webmaster/index.ts').then((m) => m.yandexWebmasterRoutes),
  },
  {
    segments: ['domains'],
    load: () => import('../features/content-files/index.ts').then((m) => m.contentFilesRoutes),
  },
  { segments: ['domains'], load: () => import('../features/domains/index.ts').then((m) => m.domainRoutes) },
];

const APP_ROUTE_ID = 'app';
const NOT_FOUND_ID = 'not-found';

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { path: 'login', lazy: async () => ({ Component: (await import('./pages/login-page.tsx')).LoginPage }) },
      {
        id: APP_ROUTE_ID,
        element: <RequireAuth />,
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./pages/starting-page.tsx')).StartingPage }),
          },
          { path: 'logout', lazy: async () => ({ Component: (await import('./pages/logout-page.tsx')).LogoutPage }) },
          {
            id: NOT_FOUND_ID,
            path: '*',
            lazy: async () => ({ Component: (await import('./pages/not-found-page.tsx')).NotFoundPage }),
          },
        ],
      },
    ],
  },
];

/** The areas that serve a path's first segment and are not loaded yet (all of them, in priority order). */
export function areasFor(pathname: string, loaded: ReadonlySet<FeatureArea>): FeatureArea[] {
  const first = pathname.replace(/^\/+/, '').split('/')[0] ?? '';
  return featureAreas.filter((a) => !loaded.has(a) && a.segments.includes(first));
}

export function createAppRouter() {
  const loaded = new Set<FeatureArea>();
  return createBrowserRouter(routes, {
    // The first visit to an area loads its routes; React Router asks again for paths only the catch-all matched.
    async patchRoutesOnNavigation({ path, patch }) {
      const areas = areasFor(path.split('?')[0] ?? '', loaded);
      if (!areas.length) return;
      const lists = await Promise.all(areas.map((a) => a.load()));
      for (const a of areas) loaded.add(a);
      // Route order breaks ties between equal paths: keep the areas' priority order.
      patch(APP_ROUTE_ID, lists.flat());
    },
  });
}
