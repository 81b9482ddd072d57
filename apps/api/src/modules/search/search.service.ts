import { SEARCH_AREAS, hasRule, type Rule, type SearchArea, type SearchResult } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { SearchRepository } from './search.repository.ts';

/** The rule that opens each area; an area the caller may not read is not searched at all. */
export const SEARCH_AREA_RULES: Record<SearchArea, Rule> = {
  domains: 'cnv:domains',
  servers: 'cnv:servers',
  clouds: 'cnv:clouds',
  users: 'cnv:users',
  brands: 'cnv:brands',
  domainRegistrators: 'cnv:domainRegistrators',
};

export function createSearchService(deps: { repo: SearchRepository }) {
  return {
    async search(q: string, actor: Actor): Promise<SearchResult> {
      const areas = SEARCH_AREAS.filter((a) => hasRule(actor.rules, SEARCH_AREA_RULES[a]));
      const found = await Promise.all(areas.map((area) => deps.repo.search(area, q)));
      return {
        q,
        areas,
        hits: areas.flatMap((area, i) =>
          found[i]!.map((r) => ({ area, _id: r.id, title: r.title, subtitle: r.subtitle ?? null })),
        ),
      };
    },
  };
}
export type SearchService = ReturnType<typeof createSearchService>;
