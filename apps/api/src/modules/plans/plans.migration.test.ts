import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../db/client.ts';

/** The migrations up to `lastIdx` alone, as a folder drizzle's migrator reads. */
function migrationsUpTo(lastIdx: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-migrations-'));
  fs.mkdirSync(path.join(dir, 'meta'));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  journal.entries = journal.entries.filter((e) => e.idx <= lastIdx);
  for (const e of journal.entries)
    fs.copyFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify(journal));
  return dir;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('one plans table: the migrations keep every plan', () => {
  it('0056 moves every import and its names into plans and plan_items with their ids and numbers, and numbers on after them', async () => {
    const pg = await PGlite.create({ extensions: { pg_trgm } });
    const db = drizzle(pg);
    const before = migrationsUpTo(55);
    dirs.push(before);
    await migrate(db, { migrationsFolder: before });
    await pg.exec(`
      insert into import_plans (id, source, source_id, source_label, source_users, state, error, created_by)
        overriding system value values
        ('00000000-0000-4000-8000-000000000001', 'directadmin', '00000000-0000-4000-8000-0000000000aa', '10.0.0.1',
          array['admin', 'bob'], 'completed_with_failures', null, 'alice');
      insert into import_plans (id, plan_no, source, source_id, source_label, state, created_by) overriding system value values
        ('00000000-0000-4000-8000-000000000002', 7, 'cloudflare', '00000000-0000-4000-8000-0000000000bb', 'ops@example.com',
          'planned', 'bob');
      insert into import_items (plan_id, seq, name, name_unicode, outcome, reason, detail, domain_id, status, error) values
        ('00000000-0000-4000-8000-000000000001', 1, 'xn--80ak6aa92e.com', 'пример.com', 'create', 'New', '{"user":"bob"}',
          null, 'done', null),
        ('00000000-0000-4000-8000-000000000001', 2, 'b.com', 'b.com', 'link', 'Link', '{}', null, 'failed', 'Refused'),
        ('00000000-0000-4000-8000-000000000002', 1, 'c.com', 'c.com', 'skip', 'Already', '{"zoneId":"z1"}', null,
          'skipped', null);
    `);

    const after = migrationsUpTo(56);
    dirs.push(after);
    await migrate(db, { migrationsFolder: after });

    const plans = await pg.query<Record<string, unknown>>(
      `select id, kind, plan_no, state, selection, detail, created_by from plans order by plan_no`,
    );
    expect(plans.rows).toEqual([
      {
        id: '00000000-0000-4000-8000-000000000001',
        kind: 'imports',
        plan_no: 1,
        state: 'completed_with_failures',
        selection: { source: 'directadmin', sourceId: '00000000-0000-4000-8000-0000000000aa', sourceLabel: '10.0.0.1' },
        detail: { sourceUsers: ['admin', 'bob'] },
        created_by: 'alice',
      },
      {
        id: '00000000-0000-4000-8000-000000000002',
        kind: 'imports',
        plan_no: 7,
        state: 'planned',
        selection: {
          source: 'cloudflare',
          sourceId: '00000000-0000-4000-8000-0000000000bb',
          sourceLabel: 'ops@example.com',
        },
        detail: { sourceUsers: null },
        created_by: 'bob',
      },
    ]);
    const items = await pg.query<Record<string, unknown>>(
      `select plan_id, seq, name, name_unicode, outcome, reason, detail, status, error from plan_items
        order by plan_id, seq`,
    );
    expect(items.rows.map((r) => [r.seq, r.name, r.name_unicode, r.outcome, r.status, r.error, r.detail])).toEqual([
      [1, 'xn--80ak6aa92e.com', 'пример.com', 'create', 'done', null, { user: 'bob' }],
      [2, 'b.com', 'b.com', 'link', 'failed', 'Refused', {}],
      [1, 'c.com', 'c.com', 'skip', 'skipped', null, { zoneId: 'z1' }],
    ]);
    // The old tables are gone; a new import is numbered after the highest kept.
    const gone = await pg.query(`select 1 from pg_tables where tablename in ('import_plans', 'import_items')`);
    expect(gone.rows).toEqual([]);
    const next = await pg.query<{ plan_no: number }>(
      `insert into plans (kind, plan_no) values ('imports', nextval('plans_imports_no_seq')) returning plan_no`,
    );
    expect(next.rows[0]!.plan_no).toBe(8);
    await pg.close();
  }, 60_000);

  it('0057 moves every fleet plan and its domains, what is the fleet’s own into the typed JSON, the account as the lane', async () => {
    const pg = await PGlite.create({ extensions: { pg_trgm } });
    const db = drizzle(pg);
    const before = migrationsUpTo(56);
    dirs.push(before);
    await migrate(db, { migrationsFolder: before });
    await pg.exec(`
      insert into fleet_plans (id, plan_no, action, selection, state, total, created_by) overriding system value values
        ('00000000-0000-4000-8000-000000000003', 4, '{"kind":"ssl","value":"strict"}', '{"ids":["x"]}', 'paused', 2,
          'alice');
      insert into fleet_plan_items (plan_id, seq, domain_id, domain_name, cloud_id, cloud_email, outcome, before, after,
        reason, seen, status, error, undo, forced) values
        ('00000000-0000-4000-8000-000000000003', 1, '00000000-0000-4000-8000-0000000000d1', 'a.com',
          '00000000-0000-4000-8000-0000000000c1', 'ops@example.com', 'change', 'full', 'strict', null, '{"ssl":"full"}',
          'done', null, '[{"part":"ssl"}]', false),
        ('00000000-0000-4000-8000-000000000003', 2, '00000000-0000-4000-8000-0000000000d2', 'b.com', null, null,
          'cannot', null, null, 'No zone', null, 'pending', 'Earlier', null, true);
    `);
    const after = migrationsUpTo(57);
    dirs.push(after);
    await migrate(db, { migrationsFolder: after });

    const plans = await pg.query<Record<string, unknown>>(
      `select id, kind, plan_no, state, selection, detail, total, created_by from plans`,
    );
    expect(plans.rows).toEqual([
      {
        id: '00000000-0000-4000-8000-000000000003',
        kind: 'fleet',
        plan_no: 4,
        state: 'paused',
        selection: { ids: ['x'] },
        detail: { action: { kind: 'ssl', value: 'strict' } },
        total: 2,
        created_by: 'alice',
      },
    ]);
    const items = await pg.query<Record<string, unknown>>(
      `select seq, domain_id, name, lane, outcome, reason, status, error, undo, forced, detail from plan_items
        order by seq`,
    );
    expect(items.rows).toEqual([
      {
        seq: 1,
        domain_id: '00000000-0000-4000-8000-0000000000d1',
        name: 'a.com',
        lane: '00000000-0000-4000-8000-0000000000c1',
        outcome: 'change',
        reason: null,
        status: 'done',
        error: null,
        undo: [{ part: 'ssl' }],
        forced: false,
        detail: { cloudEmail: 'ops@example.com', before: 'full', after: 'strict', seen: { ssl: 'full' } },
      },
      {
        seq: 2,
        domain_id: '00000000-0000-4000-8000-0000000000d2',
        name: 'b.com',
        lane: null,
        outcome: 'cannot',
        reason: 'No zone',
        status: 'pending',
        error: 'Earlier',
        undo: null,
        forced: true,
        detail: {},
      },
    ]);
    const next = await pg.query<{ plan_no: number }>(
      `insert into plans (kind, plan_no) values ('fleet', nextval('plans_fleet_no_seq')) returning plan_no`,
    );
    expect(next.rows[0]!.plan_no).toBe(5);
    await pg.close();
  }, 60_000);
});
