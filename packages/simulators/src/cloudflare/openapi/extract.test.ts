import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractOpenApi, SIMULATED_OPERATIONS } from './extract.ts';
import { EXTRACT_FILE, OFFICIAL_SCHEMA_FILE } from './files.ts';

const official = existsSync(OFFICIAL_SCHEMA_FILE);

// In CI the official file is always beside the clone: missing, it is a broken checkout, not a reason to pass.
describe.runIf(!official && !!process.env.CI)('Cloudflare OpenAPI extract (CI)', () => {
  it('needs the official OpenAPI file', () => {
    expect.fail(`${OFFICIAL_SCHEMA_FILE} is missing; the committed extract cannot be checked against it`);
  });
});

describe.skipIf(!official)('Cloudflare OpenAPI extract', () => {
  it('equals a fresh extraction from the official document (run npm run sim:cf-schema when it does not)', () => {
    const fresh = extractOpenApi(JSON.parse(readFileSync(OFFICIAL_SCHEMA_FILE, 'utf8')));
    // Compared as data: prettier may lay the committed file out its own way.
    expect(JSON.parse(readFileSync(EXTRACT_FILE, 'utf8')) as unknown).toStrictEqual(fresh);
  });
});

describe('the committed extract', () => {
  const doc = JSON.parse(readFileSync(EXTRACT_FILE, 'utf8'));
  it('holds every operation the simulator answers and every component they reach', () => {
    for (const [method, path] of SIMULATED_OPERATIONS) expect(doc.paths[path]?.[method]).toBeDefined();
    // Extracting the extract changes nothing: no $ref points outside it.
    expect(extractOpenApi(doc)).toEqual(doc);
  });
});
