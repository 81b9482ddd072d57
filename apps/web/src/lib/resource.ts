import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { ListResult } from '@fleetdesk/contract';
import { api, type QueryParams } from './api-client.ts';
import type { ApiError } from './api-error.ts';

export interface Entity {
  _id: string;
}

/** page and search, plus any extra query (e.g. in-use checks). */
export type ListParams = { page?: number; search?: string } & QueryParams;

export interface UpdateVariables<TInput> {
  id: string;
  input: Partial<TInput>;
}

/**
 * The TanStack Query hooks of one REST resource under /api/<resource>.
 * Query keys: [resource, 'list', params] and [resource, 'item', id].
 */
export function createResourceHooks<TItem extends Entity, TInput = unknown>(resource: string) {
  const path = `/api/${resource}`;
  const itemPath = (id: string) => `${path}/${encodeURIComponent(id)}`;
  const keys = {
    all: [resource] as const,
    lists: () => [resource, 'list'] as const,
    list: (params: ListParams) => [resource, 'list', params] as const,
    item: (id: string) => [resource, 'item', id] as const,
  };

  function useList(params: ListParams, options: { enabled?: boolean } = {}) {
    return useQuery({
      queryKey: keys.list(params),
      queryFn: ({ signal }) => api.get<ListResult<TItem>>(path, params, signal),
      enabled: options.enabled,
    });
  }

  function useItem(id: string | undefined) {
    return useQuery({
      queryKey: keys.item(id ?? ''),
      queryFn: ({ signal }) => api.get<TItem>(itemPath(id ?? ''), undefined, signal),
      enabled: Boolean(id),
    });
  }

  function useCreate() {
    const queryClient = useQueryClient();
    return useMutation<TItem, ApiError, TInput>({
      mutationFn: (input) => api.post<TItem>(path, input),
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
      },
    });
  }

  function useUpdate() {
    const queryClient = useQueryClient();
    return useMutation<TItem, ApiError, UpdateVariables<TInput>>({
      mutationFn: ({ id, input }) => api.patch<TItem>(itemPath(id), input),
      onSuccess: (_item, { id }) => {
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
        void queryClient.invalidateQueries({ queryKey: keys.item(id) });
      },
    });
  }

  function useRemove() {
    const queryClient = useQueryClient();
    return useMutation<unknown, ApiError, string>({
      mutationFn: (id) => api.delete(itemPath(id)),
      onSuccess: (_data, id) => {
        // Removed, not invalidated: a refetch of a deleted item would only 404.
        queryClient.removeQueries({ queryKey: keys.item(id) });
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
      },
    });
  }

  return { resource, path, keys, useList, useItem, useCreate, useUpdate, useRemove };
}

export type ResourceHooks<TItem extends Entity, TInput = unknown> = ReturnType<
  typeof createResourceHooks<TItem, TInput>
>;

/** What list screens and pickers need from a resource. */
export type UseListHook<TItem> = (
  params: ListParams,
  options?: { enabled?: boolean },
) => UseQueryResult<ListResult<TItem>, Error>;
