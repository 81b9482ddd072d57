import { createBrowserRouter, matchPath, type RouteObject } from 'react-router';
import { LoadingSpinner } from '../components/loading-spinner.tsx';
import { getToken } from '../lib/token.ts';
import { PublicLayout } from './public-layout.tsx';
import { RouteError } from './route-error.tsx';

/**
 * A feature area: the paths it serves (React Router patterns; `/*` covers everything below), and its routes,
 * loaded when one of those paths is first opened. A new feature joins with one line in `featureAreas` (its
 * index.ts exports `xxxRoutes: RouteObject[]`).
 */
export type FeatureArea = { paths: string[]; load: () => Promise<RouteObject[]> };

/**
 * Every feature, in priority order: where two areas give the same path, the one listed first wins (domains is
 * last, so its notes for actions that later issues build give way to their own routes). A first visit to
 * /domains loads the domains area only; the areas of a domain's actions load with /domains/:id/….
 */
export const featureAreas: FeatureArea[] = [
  { paths: ['fleet/*'], load: () => import('../features/fleet/index.ts').then((m) => m.fleetRoutes) },
  { paths: ['imports/*'], load: () => import('../features/imports/index.ts').then((m) => m.importsRoutes) },
  { paths: ['launches/*'], load: () => import('../features/launches/index.ts').then((m) => m.launchesRoutes) },
  { paths: ['plans/*'], load: () => import('../features/plans/index.ts').then((m) => m.planRoutes) },
  { paths: ['brands/*'], load: () => import('../features/brands/index.ts').then((m) => m.brandRoutes) },
  { paths: ['regions/*'], load: () => import('../features/regions/index.ts').then((m) => m.regionRoutes) },
  { paths: ['users/*'], load: () => import('../features/users/index.ts').then((m) => m.userRoutes) },
  { paths: ['roles/*'], load: () => import('../features/roles/index.ts').then((m) => m.roleRoutes) },
  { paths: ['sessions/*'], load: () => import('../features/sessions/index.ts').then((m) => m.sessionRoutes) },
  { paths: ['profile/*'], load: () => import('../features/profile/index.ts').then((m) => m.profileRoutes) },
  {
    paths: ['firewall-rules/*'],
    load: () => import('../features/firewall-rules/index.ts').then((m) => m.firewallRuleRoutes),
  },
  {
    paths: ['dns-templates/*'],
    load: () => import('../features/dns-templates/index.ts').then((m) => m.dnsTemplateRoutes),
  },
  {
    paths: ['launch-profiles/*'],
    load: () => import('../features/launch-profiles/index.ts').then((m) => m.launchProfileRoutes),
  },
  {
    paths: ['domain-registrators/*'],
    load: () => import('../features/domain-registrators/index.ts').then((m) => m.domainRegistratorRoutes),
  },
  {
    paths: ['domain-registrators-contacts/*'],
    load: () =>
      import('../features/domain-registrators-contacts/index.ts').then((m) => m.domainRegistratorContactRoutes),
  },
  { paths: ['audit-log/*'], load: () => import('../features/audit-log/index.ts').then((m) => m.auditLogRoutes) },
  { paths: ['clouds/*'], load: () => import('../features/clouds/index.ts').then((m) => m.cloudRoutes) },
  { paths: ['proxies/*'], load: () => import('../features/proxies/index.ts').then((m) => m.proxyRoutes) },
  { paths: ['servers/*'], load: () => import('../features/servers/index.ts').then((m) => m.serverRoutes) },
  {
    paths: ['domains/:id/*'],
    load: () => import('../features/cloud-flare/index.ts').then((m) => m.cloudFlareRoutes),
  },
  { paths: ['jobs/*', 'domains/:id/*'], load: () => import('../features/jobs/index.ts').then((m) => m.jobRoutes) },
  {
    paths: ['yandex-webmaster/*'],
    load: () => import('../features/yandex-webmaster/index.ts').then((m) => m.yandexWebmasterRoutes),
  },
  {
    paths: ['google-search/*'],
    load: () => import('../features/google-search/index.ts').then((m) => m.googleSearchRoutes),
  },
  {
    paths: ['domains/:id/*'],
    load: () => import('../features/content-files/index.ts').then((m) => m.contentFilesRoutes),
  },
  { paths: ['alerts/*'], load: () => import('../features/alerts/index.ts').then((m) => m.alertsRoutes) },
  {
    paths: ['notification-channels/*'],
    load: () => import('../features/notification-channels/index.ts').then((m) => m.notificationChannelRoutes),
  },
  { paths: ['alert-rules/*'], load: () => import('../features/alert-rules/index.ts').then((m) => m.alertRuleRoutes) },
  { paths: ['domains/*'], load: () => import('../features/domains/index.ts').then((m) => m.domainRoutes) },
];

const APP_ROUTE_ID = 'app';

// The signed-in shell's chunk (query library, frame, session guard), shared by its route and the area loader.
const loadShell = () => import('./signed-in-shell.tsx');
const NOT_FOUND_ID = 'not-found';

export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    // Shown while the first page's lazy chunk loads.
    hydrateFallbackElement: <LoadingSpinner />,
    children: [
      {
        // The signed-out pages: their own light frame, no query library (decision 048).
        element: <PublicLayout />,
        children: [
          { path: 'login', lazy: async () => ({ Component: (await import('./pages/login-page.tsx')).LoginPage }) },
          {
            path: 'login/sso',
            lazy: async () => ({ Component: (await import('./pages/sso-callback-page.tsx')).SsoCallbackPage }),
          },
        ],
      },
      {
        // Everything else: the signed-in shell (query library, frame, session guard) loads with the first of them.
        id: APP_ROUTE_ID,
        lazy: async () => ({ Component: (await loadShell()).SignedInShell }),
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

/** The areas that serve a path (whether loaded already or not), in priority order. */
export function areasFor(pathname: string): FeatureArea[] {
  return featureAreas.filter((a) => a.paths.some((p) => matchPath({ path: p, end: true }, pathname)));
}

/** Does this route (or one below it) match the path? */
const routeMatches = (r: RouteObject, pathname: string) =>
  !!r.path &&
  (!!matchPath({ path: r.path, end: true }, pathname) ||
    (!!r.children?.length && !!matchPath({ path: `${r.path}/*`, end: true }, pathname)));

/**
 * Loads the areas a path needs and adds the routes that match it. Routes go in one path at a time, in the
 * areas' priority order, because React Router keeps the first route added for a path: so a higher-priority
 * area's route wins even when a lower one was loaded earlier for another path.
 */
export function createRouteLoader() {
  const routesOf = new Map<FeatureArea, Promise<RouteObject[]>>();
  const added = new Set<RouteObject>();
  return async (pathname: string): Promise<RouteObject[]> => {
    const areas = areasFor(pathname);
    const lists = await Promise.all(
      areas.map((a) => {
        if (!routesOf.has(a)) routesOf.set(a, a.load());
        return routesOf.get(a)!;
      }),
    );
    const fresh = lists.flat().filter((r) => !added.has(r) && routeMatches(r, pathname));
    for (const r of fresh) added.add(r);
    return fresh;
  };
}

/**
 * React Router's `patchRoutesOnNavigation`: it asks for paths that only the catch-all (or a route with parameters)
 * matched, all of them signed-in ones.
 */
export function createRoutePatcher(
  load: (pathname: string) => Promise<RouteObject[]> = createRouteLoader(),
  signedIn: () => boolean = () => Boolean(getToken()),
) {
  return async ({ path, patch }: { path: string; patch: (routeId: string, children: RouteObject[]) => void }) => {
    // The shell loads beside the area, not after it (a failure is the shell route's to report when it loads).
    loadShell().catch(() => undefined);
    // Signed out, the shell's guard sends the visitor to /login whatever the path: loading the area first (a list
    // is some 40 chunks) would only delay that. React Router asks again on the next navigation.
    if (!signedIn()) return;
    const fresh = await load(path.split('?')[0] ?? '');
    if (fresh.length) patch(APP_ROUTE_ID, fresh);
  };
}

export function createAppRouter() {
  return createBrowserRouter(routes, { patchRoutesOnNavigation: createRoutePatcher() });
}
