import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { api } from '../lib/api-client.ts';
import { useToken } from '../lib/token.ts';
import { CrumbTrail } from './crumb-trail.tsx';
import { ENTITY_NAMES, crumbsFor, type Crumb } from './route-meta.ts';

const entityKey = (section: string, id: string) => ['breadcrumb', section, id] as const;

/** The trail with entity names filled in as they load (until then, and after a failed load, "…"). */
export function useCrumbs(): { crumbs: Crumb[]; pathname: string } {
  const { pathname } = useLocation();
  const token = useToken();
  const queryClient = useQueryClient();
  const crumbs = crumbsFor(pathname);
  const entities = crumbs.filter((c) => c.entity && ENTITY_NAMES[c.entity.section]).map((c) => c.entity!);
  const results = useQueries({
    queries: entities.map((e) => ({
      queryKey: entityKey(e.section, e.id),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api.get<Record<string, unknown>>(`/api/${e.section}/${encodeURIComponent(e.id)}`, undefined, signal),
      enabled: Boolean(token),
      staleTime: 30_000,
      gcTime: 5 * 60_000,
    })),
  });

  // A page that saves its entity refetches its own item query: the name here follows.
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        const key = event.query.queryKey;
        if (event.type !== 'updated' || event.action.type !== 'success' || key[1] !== 'item') return;
        if (key[0] === 'breadcrumb' || typeof key[2] !== 'string') return;
        const id = key[2];
        void queryClient.invalidateQueries({
          predicate: (q) => q.queryKey[0] === 'breadcrumb' && q.queryKey[2] === id,
          refetchType: 'active',
        });
      }),
    [queryClient],
  );

  let i = 0;
  const named = crumbs.map((c) => {
    if (!c.entity || !ENTITY_NAMES[c.entity.section]) return c;
    const data = results[i++]?.data;
    const name = data ? ENTITY_NAMES[c.entity.section]!(data) : undefined;
    return name ? { ...c, label: name } : c;
  });
  return { crumbs: named, pathname };
}

/** Breadcrumbs with the entity names the console loads (the signed-out pages show theirs without them). */
export function Breadcrumbs() {
  const { crumbs, pathname } = useCrumbs();
  return <CrumbTrail crumbs={crumbs} pathname={pathname} />;
}
