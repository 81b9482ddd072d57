import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, SCHEMA_FILE, apiTypes, schemaText } from '../scripts/openapi-doc.ts';

// The client's request types and the state file's schema are generated and committed: when the routes or the
// file's zod schema change, these fail until `npm run cli:openapi` writes them again (and tsc then checks the client).
describe('generated files', () => {
  it('the request types are those of the API as it is', { timeout: 120_000 }, async () => {
    const committed = fs.readFileSync(API_TYPES_FILE, 'utf8');
    expect(
      committed === (await apiTypes()),
      'packages/cli/src/api/openapi.gen.ts is out of date: npm run cli:openapi',
    ).toBe(true);
  });
  it("fleet.schema.json is the JSON Schema of the contract's file schema", () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(schemaText());
  });
});
