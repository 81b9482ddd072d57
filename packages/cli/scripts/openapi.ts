import fs from 'node:fs';
import { API_TYPES_FILE, SCHEMA_FILE, apiTypes, schemaText } from './openapi-doc.ts';

// `npm run cli:openapi`: writes the client's request types from the API's routes, and the state file's JSON Schema.
fs.writeFileSync(API_TYPES_FILE, await apiTypes());
fs.writeFileSync(SCHEMA_FILE, schemaText());
console.log(`Wrote ${API_TYPES_FILE.pathname} and ${SCHEMA_FILE.pathname}`);
process.exit(0);
