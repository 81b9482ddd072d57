import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SAME_DATABASE_FILES, leftToOtherCiRun } from './ci-runs.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(rel);
    return /\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

describe("CI's two runs", () => {
  // This file names both patterns itself.
  const self = 'apps/api/src/test/ci-runs.test.ts';
  const files = ['apps', 'packages', 'scripts'].flatMap(testFiles).filter((f) => f !== self);
  const using = (re: RegExp) => files.filter((f) => re.test(fs.readFileSync(path.join(ROOT, f), 'utf8'))).sort();

  it('leaves to the PostgreSQL run exactly the files on the real PostgreSQL server', () => {
    expect(using(/realPostgresUrl\(/)).toEqual([...SAME_DATABASE_FILES.postgres].sort());
  });

  it('leaves to the PGlite run exactly the files whose processes run with DATABASE_URL empty', () => {
    const embedded = using(/DATABASE_URL: ''/);
    expect(embedded).toEqual([...SAME_DATABASE_FILES.pglite].sort());
    // Such a file reaches no database through DATABASE_URL in any other way.
    for (const f of embedded)
      expect(fs.readFileSync(path.join(ROOT, f), 'utf8'), f).not.toMatch(/createTestApp|useTestApp|realPostgresUrl/);
  });

  it('runs every file without CI_STEP, each listed file in one run, and refuses a misspelt step', () => {
    expect(leftToOtherCiRun(undefined)).toEqual([]);
    expect(leftToOtherCiRun('')).toEqual([]);
    expect(leftToOtherCiRun('pglite')).toEqual(SAME_DATABASE_FILES.postgres);
    expect(leftToOtherCiRun('postgres')).toEqual(SAME_DATABASE_FILES.pglite);
    expect(() => leftToOtherCiRun('postgresql')).toThrow(/CI_STEP must be pglite or postgres/);
  });
});
