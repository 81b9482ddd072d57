import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ListResult } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';

/** The page, the search and the one filter of a plan's items: a new search or filter starts at page 1. */
export function usePlanItemsQuery() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState('');
  return {
    page,
    search,
    filter,
    setPage,
    setSearch: (v: string) => {
      setSearch(v);
      setPage(1);
    },
    setFilter: (v: string) => {
      setFilter(v);
      setPage(1);
    },
  };
}

/** The states in which a plan moves by itself (read, run, or waiting on its launches): its page polls then. */
const MOVING = new Set(['planning', 'running', 'waiting_for_confirmation']);

/** A plan of any kind at `path`, polled every second while it moves (`moving`: the kind's states that do). */
export function usePlanQuery<P extends { state: string }>(
  key: readonly unknown[],
  path: string,
  moving: ReadonlySet<string> = MOVING,
) {
  return useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.get<P>(path, undefined, signal),
    refetchInterval: (q) => (q.state.data && moving.has(q.state.data.state) ? 1000 : false),
  });
}

/**
 * A page of a plan's items at `path`, with the view's page, search and filter (sent as `filterParam`): read again
 * whenever `version` (the plan's state and counts) moves, the last page kept meanwhile.
 */
export function usePlanItemsPage<T>(
  key: readonly unknown[],
  path: string,
  version: string,
  filterParam: 'outcome' | 'status' = 'outcome',
) {
  const state = usePlanItemsQuery();
  const params = { page: state.page, search: state.search || undefined, [filterParam]: state.filter || undefined };
  const query = useQuery({
    queryKey: [...key, params, version],
    queryFn: ({ signal }) => api.get<ListResult<T>>(path, { ...params }, signal),
    placeholderData: keepPreviousData,
  });
  return { state, query };
}
