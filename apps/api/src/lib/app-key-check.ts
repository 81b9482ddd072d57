import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { appKeyCheck } from '../db/schema/index.ts';
import type { SecretBox } from './secret-box.ts';

const CHECK_TEXT = 'fleetdesk app key check v1';

export class AppKeyMismatchError extends Error {
  constructor(detail: string) {
    super(
      `APP_SECRET_KEY does not match the key this database's secrets were sealed with (${detail}). Start every ` +
        'process (API and workers) with the same APP_SECRET_KEY, or the same DATA_DIR/app.key when none is set: ' +
        'with another key every provider call would fail.',
    );
    this.name = 'AppKeyMismatchError';
  }
}

const opens = (secrets: SecretBox, sealed: string, expected?: string) => {
  try {
    const plain = secrets.decrypt(sealed);
    return expected === undefined || plain === expected;
  } catch {
    return false;
  }
};

/**
 * Refuses a key that cannot open what the database holds (issue 26). The check value is written by the first
 * process that finds none; a database that already holds sealed secrets from before it must open one of them
 * first, so a wrong key never writes the check value.
 */
export async function ensureAppKeyMatches(database: Database, secrets: SecretBox): Promise<void> {
  const read = async () =>
    (await database.db.select().from(appKeyCheck).where(eq(appKeyCheck.id, 1)))[0]?.sealed ?? undefined;
  let sealed = await read();
  if (sealed === undefined) {
    const sample = await anySealedSecret(database);
    if (sample && !opens(secrets, sample.value)) {
      throw new AppKeyMismatchError(`it cannot decrypt ${sample.where}`);
    }
    await database.db
      .insert(appKeyCheck)
      .values({ id: 1, sealed: secrets.encrypt(CHECK_TEXT) })
      .onConflictDoNothing();
    // Another process may have written its own at the same moment: the row that won is the one to match.
    sealed = await read();
  }
  if (sealed === undefined || !opens(secrets, sealed, CHECK_TEXT)) {
    throw new AppKeyMismatchError('it cannot decrypt the check value in app_key_check');
  }
}

/** One sealed value from any `*_enc` column (and the registrar's api_key), if the database holds one. */
async function anySealedSecret(database: Database): Promise<{ value: string; where: string } | undefined> {
  const cols = (await database.db.execute(
    sql`select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and data_type = 'text'
          and (column_name like '%\\_enc' or (table_name = 'domain_registrators' and column_name = 'api_key'))
        order by table_name, column_name`,
  )) as unknown as { rows: { table_name: string; column_name: string }[] };
  for (const { table_name: table, column_name: column } of cols.rows) {
    const res = (await database.db.execute(
      sql`select ${sql.identifier(column)} as v from ${sql.identifier(table)}
          where ${sql.identifier(column)} like 'v1:%' limit 1`,
    )) as unknown as { rows: { v: string }[] };
    const v = res.rows[0]?.v;
    if (v) return { value: v, where: `${table}.${column}` };
  }
  return undefined;
}

/** At start, after the migrations: a wrong key ends the process with the reason, before it serves or runs jobs. */
export async function refuseWrongAppKey(c: { database: Database; secrets: SecretBox; close?: () => Promise<void> }) {
  try {
    await ensureAppKeyMatches(c.database, c.secrets);
  } catch (err) {
    if (!(err instanceof AppKeyMismatchError)) throw err;
    console.error(err.message);
    await c.database.close?.().catch(() => undefined);
    process.exit(2);
  }
}
