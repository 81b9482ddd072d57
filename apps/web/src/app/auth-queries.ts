import { useQuery } from '@tanstack/react-query';
import { fetchMe } from '../lib/auth.ts';

/** Who is signed in; keyed by the token so a new session never shows the previous user. */
export function useMe(token: string | null) {
  return useQuery({
    queryKey: ['auth', 'me', token],
    queryFn: ({ signal }) => fetchMe(signal),
    enabled: Boolean(token),
    staleTime: Infinity,
  });
}
