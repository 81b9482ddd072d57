import { apiFetch, type QueryParams } from './api-client.ts';
import { toApiError } from './api-error.ts';

/** GETs an export URL (with the list's search and filters) and saves the answer as a CSV file. */
export async function exportCsv(
  url: string,
  options: { search?: string; fileName: string } & QueryParams,
): Promise<void> {
  const { fileName: _fileName, ...query } = options;
  const response = await apiFetch(url, { query, accept: 'text/csv' });
  if (!response.ok) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    throw toApiError(response.status, body);
  }
  const text = await response.text();
  saveTextFile(text, options.fileName, 'text/csv;charset=utf-8');
}

export function saveTextFile(text: string, fileName: string, type: string) {
  const href = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next tick: some browsers read the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(href), 0);
}
