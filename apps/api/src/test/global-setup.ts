import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../config.ts';
import { migratedPgliteImage, openPostgres } from '../db/client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory (a tarball) each test file's database starts from (harness.ts). */
    pgliteImage: string | null;
    /** A migrated database on DATABASE_URL's server each test file's database is a copy of (harness.ts). */
    pgTemplate: string | null;
  }
}

/**
 * Once per run, before any test file: the migrations applied once, to a database every test file then copies
 * (decision 067). A PGlite made and migrated takes 2–3 s, a copy of its dumped data directory under 1 s; on
 * PostgreSQL, `CREATE DATABASE … TEMPLATE` instead of 32 migrations per file.
 */
export default async function setup(project: TestProject) {
  const { DATABASE_URL: url } = loadConfig(process.env, { dotenv: false });
  project.provide('pgliteImage', null);
  project.provide('pgTemplate', null);
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-test-image-'));
    const file = path.join(dir, 'pglite.tar');
    fs.writeFileSync(file, Buffer.from(await (await migratedPgliteImage()).arrayBuffer()));
    project.provide('pgliteImage', file);
    return () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const name = `fd_test_template_${crypto.randomBytes(5).toString('hex')}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const template = await openPostgres(u.toString(), { max: 1 });
  await template.migrate();
  // A template copies only while nothing is connected to it.
  await template.close();
  project.provide('pgTemplate', name);
  return async () => {
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  };
}
