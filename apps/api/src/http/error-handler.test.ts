import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness.ts';
import type { Database } from '../db/client.ts';
import { fieldSentence, fieldWords, installErrorHandler, loggableError } from './error-handler.ts';

const SECRET = 'argon2id$v=19$m=65536$SUPER-SECRET-HASH';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
});
afterAll(async () => drop?.());

async function appWithLogs() {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  installErrorHandler(app);
  // Not data exceptions (SQLSTATE class 22), which answer 400: these reach the 500 path that logs.
  app.get('/missing', async () => database.db.execute(sql`select * from no_such_table where ${SECRET} = ${SECRET}`));
  app.get('/column', async () =>
    database.db.execute(sql`select no_such_column from pg_class where relname = ${SECRET}`),
  );
  await app.ready();
  return { app, logs };
}

describe('logging a failed query', () => {
  it('keeps the query text and the error, never the parameters', async () => {
    const { app, logs } = await appWithLogs();
    for (const url of ['/missing', '/column']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('SUPER-SECRET');
    }
    await app.close();
    const text = logs.join('\n');
    expect(text).toContain('unhandled error');
    expect(text).toContain('select * from no_such_table where $1 = $2');
    expect(text).toMatch(/no_such_table\W{1,3} does not exist/);
    expect(text).toMatch(/no_such_column\W{1,3} does not exist/);
    expect(text).not.toContain('SUPER-SECRET');
  });

  it('cuts parameters out of nested causes and leaves other errors readable', () => {
    const cause = Object.assign(new Error(`duplicate value "${SECRET}"`), { code: '23505', detail: `Key=(${SECRET})` });
    const err = Object.assign(new Error(`Failed query: insert into t values ($1)\nparams: ${SECRET}`), {
      query: 'insert into t values ($1)',
      params: [SECRET],
      cause,
    });
    const logged = JSON.stringify(loggableError(err));
    expect(logged).not.toContain('SUPER-SECRET');
    expect(logged).toContain('insert into t values ($1)');
    expect(logged).toContain('23505');
    expect(loggableError(new Error('plain'))).toMatchObject({ type: 'Error', message: 'plain' });
  });
});

describe('fieldSentence', () => {
  it('names a field in words, never by its key (issue 47)', () => {
    expect(fieldWords('domainName')).toBe('Domain name');
    expect(fieldWords('records.0.serverId')).toBe('Server');
    expect(fieldWords('IPAddress')).toBe('IP address');
    expect(fieldSentence('domainName', 'Domain name must be a valid host name')).toBe(
      'Domain name must be a valid host name',
    );
    expect(fieldSentence('copyFromDomainId', 'Invalid input')).toBe('Copy from domain: Invalid input');
  });
});
