import crypto from 'node:crypto';
import { asc, sql } from 'drizzle-orm';
import { bigint, boolean, date, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite, openPostgres, preparedArrays, type Database } from './client.ts';
import { realPostgresUrl } from '../test/real-postgres.ts';

const PG_URL = realPostgresUrl('db/prepared-arrays.test.ts', 'its PostgreSQL half needs');

const drivers: [string, () => Promise<Database>][] = [['PGlite', () => openPglite(undefined)]];
if (PG_URL) drivers.push(['PostgreSQL', () => openPostgres(PG_URL, { max: 2 })]);

describe.each(drivers)('preparedArrays on %s', (_name, open) => {
  let opened: Database | undefined;
  const table = `fd_arrays_${crypto.randomBytes(4).toString('hex')}`;
  const t = pgTable(table, {
    id: uuid('id').notNull(),
    no: integer('no').notNull(),
    name: text('name'),
    on: boolean('on').notNull(),
    big: bigint('big', { mode: 'number' }),
    day: date('day', { mode: 'string' }),
    at: timestamp('at', { withTimezone: true, mode: 'string' }),
  });
  afterAll(async () => {
    await opened?.exec(`DROP TABLE IF EXISTS ${table}`);
    await opened?.close();
  });

  it('answers the select as arrays in its fields order, with placeholders filled, dates as text, on repeat', async () => {
    const database = (opened = await open());
    await database.exec(`CREATE TABLE ${table} (id uuid not null, no int not null, name text, "on" boolean not null,
      big bigint, day date, at timestamptz);
      INSERT INTO ${table} VALUES ('6f1c3c36-9a57-4d8e-9a2b-0a1b2c3d4e5f', 1, 'one', true, 9007199254740, '2026-02-28', '2026-02-28 23:30:00+00'),
        ('7f1c3c36-9a57-4d8e-9a2b-0a1b2c3d4e5f', 2, null, false, null, null, null),
        ('8f1c3c36-9a57-4d8e-9a2b-0a1b2c3d4e5f', 3, 'three', true, 3, '1999-12-31', null)`);
    const query = database.db
      .select({
        no: t.no,
        day: t.day,
        name: t.name,
        id: t.id,
        on: t.on,
        big: t.big,
        at: t.at,
        n: sql<number>`count(*) over ()`,
      })
      .from(t)
      .where(sql`${t.no} = any(${sql.placeholder('nos')}::int[])`)
      .orderBy(asc(t.no));
    const st = preparedArrays(database.db, `${table}_read`, query);
    for (let i = 0; i < 2; i++) {
      const rows = await st.execute({ nos: '{1,2}' });
      expect(rows).toHaveLength(2);
      const [no, day, name, id, on, big, at, n] = rows[0]!;
      expect([no, day, name, id, on, n === 2 || n === '2']).toEqual([
        1,
        '2026-02-28',
        'one',
        '6f1c3c36-9a57-4d8e-9a2b-0a1b2c3d4e5f',
        true,
        true,
      ]);
      expect(Number(big)).toBe(9007199254740);
      expect(typeof at).toBe('string');
      expect(new Date(at as string).toISOString()).toBe('2026-02-28T23:30:00.000Z');
      expect(rows[1]!.slice(0, 7)).toEqual([2, null, null, '7f1c3c36-9a57-4d8e-9a2b-0a1b2c3d4e5f', false, null, null]);
    }
    expect((await st.execute({ nos: '{3}' })).map((r) => r[1])).toEqual(['1999-12-31']);
  });

  it('refuses a database it did not open', () => {
    expect(() => preparedArrays({} as Database['db'], 'x', { toSQL: () => ({ sql: 'select 1', params: [] }) })).toThrow(
      /not a database opened by openDatabase/,
    );
  });
});
