import { describe, expect, it, vi } from 'vitest';
import { matchPath, type RouteObject } from 'react-router';
import { createRouteLoader, createRoutePatcher, featureAreas } from './router.tsx';

/** The lazy routing table: each area covers its own routes, and priority holds whatever the load order. */
describe('feature areas', () => {
  it("every route of an area is covered by the area's paths, so its first visit loads it", async () => {
    for (const area of featureAreas) {
      const routes = await area.load();
      expect(routes.length).toBeGreaterThan(0);
      for (const r of routes) {
        // A concrete path for the route: each :param becomes a value.
        const sample = `/${r.path!.replace(/:[^/]+/g, 'x1')}`;
        const covered = area.paths.some((p) => matchPath({ path: p, end: true }, sample));
        expect(covered, `${r.path} is outside ${area.paths.join(', ')}`).toBe(true);
      }
    }
  }, 60_000);

  it('adds only the routes a path needs, and a higher-priority route for a path wins even when loaded later', async () => {
    const load = createRouteLoader();
    const list = await load('/domains');
    expect(list.map((r) => r.path)).toEqual(['domains']);
    // The content-files area's page comes before any route of the domains area for the same path.
    const edit = await load('/domains/x1/edit-content-files');
    expect(edit.map((r: RouteObject) => r.path)).toContain('domains/:id/edit-content-files');
    const own = (await import('../features/content-files/index.ts')).contentFilesRoutes;
    expect(edit[0]).toBe(own[0]);
    const sitemap = await load('/domains/x1/generate-sitemap');
    expect(sitemap[0]).toBe(
      (await import('../features/jobs/index.ts')).jobRoutes.find((r) => r.path === 'domains/:id/generate-sitemap'),
    );
    expect(await load('/domains')).toEqual([]);
    expect(await load('/nowhere')).toEqual([]);
  }, 60_000);
});

describe('the route patcher', () => {
  it('adds the areas a signed-in path needs under the signed-in shell', async () => {
    const patched: [string, RouteObject[]][] = [];
    const patchRoutes = createRoutePatcher(createRouteLoader(), () => true);
    await patchRoutes({ path: '/domains?page=2', patch: (id, children) => patched.push([id, children]) });
    expect(patched.map(([id, children]) => [id, children.map((r) => r.path)])).toEqual([['app', ['domains']]]);
  }, 60_000);

  it('loads no area for a signed-out visitor, whom the guard sends to /login', async () => {
    const load = vi.fn(createRouteLoader());
    const patch = vi.fn();
    await createRoutePatcher(load, () => false)({ path: '/domains', patch });
    expect(load).not.toHaveBeenCalled();
    expect(patch).not.toHaveBeenCalled();
  }, 60_000);
});
