/** `npm run sim:cf-schema`: rewrites the committed extract from ../shared/docs/integrations/cloudflare-openapi.json. */
import { readFileSync, writeFileSync } from 'node:fs';
import { extractOpenApi } from './extract.ts';
import { EXTRACT_FILE, OFFICIAL_SCHEMA_FILE, serializeExtract } from './files.ts';

const doc = JSON.parse(readFileSync(process.argv[2] ?? OFFICIAL_SCHEMA_FILE, 'utf8'));
writeFileSync(EXTRACT_FILE, serializeExtract(extractOpenApi(doc)));
console.log(`wrote ${EXTRACT_FILE}`);
