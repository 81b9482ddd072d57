import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { parsePage } from './pager-logic.ts';

/** List paging and search kept in the URL (?page=&search=). */
export function useListUrlState() {
  const [searchParams, setSearchParams] = useSearchParams();
  const page = parsePage(searchParams.get('page'));
  const search = searchParams.get('search') ?? '';

  const setPage = useCallback(
    (next: number) =>
      setSearchParams((prev) => {
        const params = new URLSearchParams(prev);
        if (next <= 1) params.delete('page');
        else params.set('page', String(next));
        return params;
      }),
    [setSearchParams],
  );

  // A new search starts again at page 1; typing should not flood the history.
  const setSearch = useCallback(
    (next: string) =>
      setSearchParams(
        (prev) => {
          const params = new URLSearchParams(prev);
          params.delete('page');
          if (next.trim()) params.set('search', next);
          else params.delete('search');
          return params;
        },
        { replace: true },
      ),
    [setSearchParams],
  );

  return { page, search, searchParams, setPage, setSearch };
}
