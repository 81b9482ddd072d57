import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { ListResult } from '@fleetdesk/contract';
import { api, type QueryParams } from './api-client.ts';
import { FALLBACK_MESSAGES, withFallback, type ApiError } from './api-error.ts';

export interface Entity {
  _id: string;
}

/** page and search, plus any extra query (e.g. in-use checks). */
export type ListParams = { page?: number; search?: string } & QueryParams;

export interface UpdateVariables<TInput> {
  id: string;
  input: Partial<TInput>;
}

export type ResourceOptions = {
  /**
   * The update method: the first spec document's resources update with PATCH (the default), the second's
   * (domains, users, roles, firewall rules, registrators, contacts) with PUT. The API takes both as partial.
   */
  update?: 'PATCH' | 'PUT';
  /** Messages for failures the server gave no message for (the second document's §8 fallbacks). */
  fallbacks?: { load?: string; create?: string; update?: string; remove?: string };
};

/** The second spec document's resources: PUT for updates, "Failed to fetch data" for a failed load. */
export const SECOND_DOCUMENT = {
  update: 'PUT',
  fallbacks: { load: FALLBACK_MESSAGES.fetch },
} as const satisfies ResourceOptions;

/**
 * The TanStack Query hooks of one REST resource under /api/<resource>.
 * Query keys: [resource, 'list', params] and [resource, 'item', id].
 */
export function createResourceHooks<TItem extends Entity, TInput = unknown>(
  resource: string,
  options: ResourceOptions = {},
) {
  const update = options.update === 'PUT' ? api.put : api.patch;
  const fallbacks = options.fallbacks ?? {};
  /** Rejects with the fallback message when the server gave none. */
  const orFallback =
    (fallback: string | undefined) =>
    (error: unknown): never => {
      throw withFallback(error, fallback);
    };
  const path = `/api/${resource}`;
  const itemPath = (id: string) => `${path}/${encodeURIComponent(id)}`;
  const keys = {
    all: [resource] as const,
    lists: () => [resource, 'list'] as const,
    list: (params: ListParams) => [resource, 'list', params] as const,
    item: (id: string) => [resource, 'item', id] as const,
  };

  // The calls themselves; the hooks below wrap them. A failure without a server message takes the fallback.
  const fetchList = (params: ListParams, signal?: AbortSignal) =>
    api.get<ListResult<TItem>>(path, params, signal).catch(orFallback(fallbacks.load));
  const fetchItem = (id: string, signal?: AbortSignal) =>
    api.get<TItem>(itemPath(id), undefined, signal).catch(orFallback(fallbacks.load));
  const createItem = (input: TInput) => api.post<TItem>(path, input).catch(orFallback(fallbacks.create));
  /** PATCH or PUT, see ResourceOptions. */
  const updateItem = (id: string, input: Partial<TInput>) =>
    update<TItem>(itemPath(id), input).catch(orFallback(fallbacks.update));
  const removeItem = (id: string) => api.delete(itemPath(id)).catch(orFallback(fallbacks.remove));

  function useList(params: ListParams, options: { enabled?: boolean } = {}) {
    return useQuery({
      queryKey: keys.list(params),
      queryFn: ({ signal }) => fetchList(params, signal),
      enabled: options.enabled,
    });
  }

  function useItem(id: string | undefined) {
    return useQuery({
      queryKey: keys.item(id ?? ''),
      queryFn: ({ signal }) => fetchItem(id ?? '', signal),
      enabled: Boolean(id),
    });
  }

  function useCreate() {
    const queryClient = useQueryClient();
    return useMutation<TItem, ApiError, TInput>({
      mutationFn: createItem,
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
      },
    });
  }

  function useUpdate() {
    const queryClient = useQueryClient();
    return useMutation<TItem, ApiError, UpdateVariables<TInput>>({
      mutationFn: ({ id, input }) => updateItem(id, input),
      onSuccess: (_item, { id }) => {
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
        void queryClient.invalidateQueries({ queryKey: keys.item(id) });
      },
    });
  }

  function useRemove() {
    const queryClient = useQueryClient();
    return useMutation<unknown, ApiError, string>({
      mutationFn: removeItem,
      onSuccess: (_data, id) => {
        // Removed, not invalidated: a refetch of a deleted item would only 404.
        queryClient.removeQueries({ queryKey: keys.item(id) });
        void queryClient.invalidateQueries({ queryKey: keys.lists() });
      },
    });
  }

  return {
    resource,
    path,
    keys,
    fallbacks,
    fetchList,
    fetchItem,
    createItem,
    updateItem,
    removeItem,
    useList,
    useItem,
    useCreate,
    useUpdate,
    useRemove,
  };
}

export type ResourceHooks<TItem extends Entity, TInput = unknown> = ReturnType<
  typeof createResourceHooks<TItem, TInput>
>;

/** What list screens and pickers need from a resource. */
export type UseListHook<TItem> = (
  params: ListParams,
  options?: { enabled?: boolean },
) => UseQueryResult<ListResult<TItem>, Error>;
