import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { clouds } from '../db/schema/index.ts';
import { createTestDatabase } from '../test/harness.ts';
import { AppKeyMismatchError, ensureAppKeyMatches } from './app-key-check.ts';
import { createSecretBox } from './secret-box.ts';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
});
afterAll(async () => drop?.());
beforeEach(async () => database.exec('TRUNCATE app_key_check, clouds CASCADE'));

const keyA = createSecretBox(crypto.randomBytes(32));
const keyB = createSecretBox(crypto.randomBytes(32));
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppKeyMismatchError);
  return (err as Error).message;
};

describe('the app key check (issue 26)', () => {
  it('the first process writes the check value; a process with another key is refused, naming APP_SECRET_KEY', async () => {
    await ensureAppKeyMatches(database, keyA);
    await ensureAppKeyMatches(database, keyA);
    const message = await refusal(ensureAppKeyMatches(database, keyB));
    expect(message).toMatch(/^APP_SECRET_KEY does not match the key this database's secrets were sealed with/);
    expect(message).toContain('app_key_check');
  });

  it('a database with secrets from before the check is matched against one of them, never sealed anew', async () => {
    await database.db.insert(clouds).values({ email: 'ops@example.test', tokenEnc: keyA.encrypt('cf-token') });
    const message = await refusal(ensureAppKeyMatches(database, keyB));
    expect(message).toContain('clouds.token_enc');
    // The wrong key wrote nothing: the right one still starts, and then writes the check value.
    await ensureAppKeyMatches(database, keyA);
    await refusal(ensureAppKeyMatches(database, keyB));
  });

  it('two processes starting at once with different keys: one wins, the other is refused', async () => {
    const results = await Promise.allSettled([
      ensureAppKeyMatches(database, keyA),
      ensureAppKeyMatches(database, keyB),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
  });
});
