import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';

/** Only the database is read (http/ names nothing above it; the container fits). */
export const healthRoutes = (c: { database: Pick<Database, 'db' | 'driver'> }) => async (app: FastifyInstance) => {
  app.get('/healthz', { config: { access: 'public' } }, async () => ({ data: { status: 'ok' } }));
  app.get('/readyz', { config: { access: 'public' } }, async (req, reply) => {
    try {
      await c.database.db.execute(sql`select 1`);
      return { data: { status: 'ready', database: c.database.driver } };
    } catch (err) {
      req.log.error({ err }, 'database not ready');
      return reply
        .status(503)
        .send({ message: 'The database does not answer', code: 'not_ready', requestId: String(req.id) });
    }
  });
};
