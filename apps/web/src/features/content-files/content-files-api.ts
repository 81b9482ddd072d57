import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ContentFileItem, ContentFilesDir, ContentFilesUploadResult, Domain } from '@fleetdesk/contract';
import { api, apiFetch, apiRequest, buildUrl } from '../../lib/api-client.ts';
import { ApiError, GENERIC_ERROR_MESSAGE, toApiError } from '../../lib/api-error.ts';
import { getToken } from '../../lib/token.ts';

const enc = encodeURIComponent;
const domainPath = (id: string) => `/api/domains/${enc(id)}`;
const cfPath = (id: string, action: string) => `${domainPath(id)}/content-files/${action}`;

/** The spec's fallback messages (§8), shown when a call fails, with the server's reason under them. */
export const CONTENT_FILES_MESSAGES = {
  load: 'Failed to load content files',
  loadFile: 'Failed to load files content',
  save: 'Failed to save file',
  createDir: 'Failed to create domain directory',
} as const;

export const contentFilesPaths = {
  page: (id: string) => `/domains/${enc(id)}/edit-content-files`,
  domain: (id: string) => `/domains/${enc(id)}`,
};

export const contentFilesKeys = {
  domain: (id: string) => ['domains', 'item', id] as const,
  all: (id: string) => ['domains', 'content-files', id] as const,
  dir: (id: string) => ['domains', 'content-files', id, 'dir'] as const,
  list: (id: string, path: string) => ['domains', 'content-files', id, 'list', path] as const,
  file: (id: string, path: string) => ['domains', 'content-files', id, 'file', path] as const,
};

export function useDomain(id: string) {
  return useQuery({
    queryKey: contentFilesKeys.domain(id),
    queryFn: ({ signal }) => api.get<Domain>(domainPath(id), undefined, signal),
    enabled: Boolean(id),
  });
}

export function useContentDir(id: string, enabled = true) {
  return useQuery({
    queryKey: contentFilesKeys.dir(id),
    queryFn: ({ signal }) => api.get<ContentFilesDir>(`${domainPath(id)}/content-files-dir`, undefined, signal),
    enabled: enabled && Boolean(id),
    retry: false,
  });
}

export function useContentList(id: string, path: string, enabled: boolean) {
  return useQuery({
    queryKey: contentFilesKeys.list(id, path),
    queryFn: ({ signal }) => api.get<{ items: ContentFileItem[] }>(`${domainPath(id)}/content-files`, { path }, signal),
    enabled: Boolean(id) && enabled,
    retry: false,
  });
}

export function useFileContent(id: string, path: string | null) {
  return useQuery({
    queryKey: contentFilesKeys.file(id, path ?? ''),
    queryFn: ({ signal }) => api.get<{ fileContent: string }>(cfPath(id, 'file-content'), { path: path ?? '' }, signal),
    enabled: Boolean(id) && Boolean(path),
    retry: false,
    // The editor owns the text once loaded: a background refetch must not overwrite unsaved edits.
    staleTime: Infinity,
    gcTime: 0,
  });
}

/** Every listing and the directory state are stale after a write. */
function useInvalidate(id: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: contentFilesKeys.all(id) });
}

export function useCreateDomainDir(id: string) {
  const invalidate = useInvalidate(id);
  return useMutation<ContentFilesDir, ApiError, void>({
    mutationFn: () => api.post<ContentFilesDir>(cfPath(id, 'create-domain-dir')),
    onSuccess: () => void invalidate(),
  });
}

export function useSaveFile(id: string) {
  const queryClient = useQueryClient();
  return useMutation<{ path: string }, ApiError, { path: string; content: string }>({
    // What was saved is now the file's content: the editor's "unsaved" mark clears.
    onSuccess: (_r, v) => queryClient.setQueryData(contentFilesKeys.file(id, v.path), { fileContent: v.content }),
    mutationFn: async ({ path, content }) => {
      // PUT takes the content as plain text (spec §7), not JSON.
      const headers: Record<string, string> = {
        'Content-Type': 'text/plain; charset=utf-8',
        Accept: 'application/json',
      };
      const token = getToken();
      if (token) headers.Authorization = token;
      let res: Response;
      try {
        res = await fetch(buildUrl(cfPath(id, 'file-content'), { path }), { method: 'PUT', headers, body: content });
      } catch {
        throw new ApiError(0, GENERIC_ERROR_MESSAGE);
      }
      const body = (await res.json().catch(() => undefined)) as { data?: { path: string } } | undefined;
      if (!res.ok) throw toApiError(res.status, body);
      return body?.data ?? { path };
    },
  });
}

export function useRename(id: string) {
  const invalidate = useInvalidate(id);
  return useMutation<{ path: string }, ApiError, { path: string; name: string }>({
    mutationFn: ({ path, name }) =>
      apiRequest<{ data: { path: string } }>(cfPath(id, 'rename'), {
        method: 'POST',
        query: { path },
        body: { name },
      }).then((b) => b.data),
    onSuccess: () => void invalidate(),
  });
}

export function useRemove(id: string) {
  const invalidate = useInvalidate(id);
  return useMutation<unknown, ApiError, string>({
    mutationFn: (path) => apiRequest(cfPath(id, 'remove'), { method: 'DELETE', body: { path } }),
    onSuccess: () => void invalidate(),
  });
}

export function useCreateDir(id: string) {
  const invalidate = useInvalidate(id);
  return useMutation<{ path: string }, ApiError, { path: string; name: string }>({
    mutationFn: (input) => api.post<{ path: string }>(cfPath(id, 'create-dir'), input),
    onSuccess: () => void invalidate(),
  });
}

/** One file to upload and its path relative to the target folder ("site/css/a.css" keeps the folders). */
export type UploadEntry = { file: File; path: string };

/**
 * Uploads with XMLHttpRequest, the one browser API that reports upload progress. The paths go in `filesPathes`
 * right before each file, so the server can stream each file straight to its place.
 */
export function uploadFiles(
  id: string,
  dir: string,
  entries: UploadEntry[],
  onProgress: (fraction: number) => void,
): Promise<ContentFilesUploadResult> {
  const form = new FormData();
  for (const e of entries) {
    form.append('filesPathes', e.path);
    form.append('files', e.file, e.file.name);
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', buildUrl(cfPath(id, 'upload'), { path: dir }));
    const token = getToken();
    if (token) xhr.setRequestHeader('Authorization', token);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (ev) => {
      if (ev.lengthComputable && ev.total > 0) onProgress(ev.loaded / ev.total);
    };
    xhr.onerror = () => reject(new ApiError(0, GENERIC_ERROR_MESSAGE));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve((body as { data: ContentFilesUploadResult }).data);
      else reject(toApiError(xhr.status, body));
    };
    xhr.send(form);
  });
}

/** Downloads through fetch (the token is a header, so a plain link cannot carry it) and saves under its name. */
export async function downloadFile(id: string, path: string, name: string): Promise<void> {
  const res = await apiFetch(cfPath(id, 'download'), { query: { path }, accept: '*/*' });
  if (!res.ok) throw toApiError(res.status, await res.json().catch(() => undefined));
  const url = URL.createObjectURL(await res.blob());
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** Reads a drop: plain files, and whole folders through the entries API, keeping their relative paths. */
export async function entriesFromDrop(dt: DataTransfer, maxEntries: number): Promise<UploadEntry[]> {
  const out: UploadEntry[] = [];
  const roots = [...dt.items].filter((i) => i.kind === 'file').map((i) => i.webkitGetAsEntry?.() ?? null);
  if (roots.some((r) => r === null)) {
    return [...dt.files].map((file) => ({ file, path: file.name }));
  }
  const fileOf = (e: FileSystemFileEntry) => new Promise<File>((res, rej) => e.file(res, rej));
  const readAll = async (dir: FileSystemDirectoryEntry) => {
    const reader = dir.createReader();
    const all: FileSystemEntry[] = [];
    // readEntries answers in batches (100 in Chromium) until an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) return all;
      all.push(...batch);
    }
  };
  const walk = async (entry: FileSystemEntry, prefix: string) => {
    if (out.length > maxEntries) return;
    const p = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) out.push({ file: await fileOf(entry as FileSystemFileEntry), path: p });
    else if (entry.isDirectory)
      for (const child of await readAll(entry as FileSystemDirectoryEntry)) await walk(child, p);
  };
  for (const r of roots) await walk(r!, '');
  return out;
}
