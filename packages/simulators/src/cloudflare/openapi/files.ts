import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The official file lives beside the repository (../shared), never inside it. */
export const OFFICIAL_SCHEMA_FILE = resolve(here, '../../../../../../shared/docs/integrations/cloudflare-openapi.json');
export const EXTRACT_FILE = resolve(here, 'cloudflare-openapi.extract.json');

export function serializeExtract(extract: unknown): string {
  return `${JSON.stringify(extract, null, 2)}\n`;
}
