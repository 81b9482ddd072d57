/**
 * The hand-written endpoint issue 15 measures against: Fastify 5 + pg, pool 10, count(*) plus OFFSET, ILIKE
 * with trigram GIN indexes, no auth, no validation beyond parsing. It serves its own copy of the rows
 * (bench_domains, bench_brands), made by lists.bench.ts. Started by the bench as a child process:
 *   DATABASE_URL=... PORT=... tsx bench/lists-baseline.ts
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
const COLS = `id, domain_no, domain_name, domain_name_unicode, status, server_id, brand_id, cloud_id, cloud_zone_id,
  redirect_domain_name, is_restricted, domain_registrator_id, domain_registrator_expiration_date`;

app.get('/domains', async (req) => {
  const q = req.query as Record<string, string | undefined>;
  const page = Math.max(1, Number(q.page) || 1);
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    const n = args.push(v);
    where.push(sql.replaceAll('?', `$${n}`));
  };
  if (q.search) add('(domain_name ILIKE ? OR redirect_domain_name ILIKE ?)', `%${q.search}%`);
  for (const [param, col] of [
    ['brandId', 'brand_id'],
    ['serverId', 'server_id'],
    ['cloudId', 'cloud_id'],
    ['domainRegistratorId', 'domain_registrator_id'],
  ]) {
    const v = q[param!];
    if (v === 'none') where.push(`${col} IS NULL`);
    else if (v) add(`${col} = ?`, v);
  }
  if (q.status) add('status = ?', q.status);
  if (q.hasZone) where.push(q.hasZone === 'true' ? 'cloud_zone_id IS NOT NULL' : 'cloud_zone_id IS NULL');
  if (q.expiresBefore) add('domain_registrator_expiration_date < ?', q.expiresBefore);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [rows, total] = await Promise.all([
    pool.query(`SELECT ${COLS} FROM bench_domains ${w} ORDER BY domain_no LIMIT 20 OFFSET ${(page - 1) * 20}`, args),
    pool.query(`SELECT count(*)::int AS n FROM bench_domains ${w}`, args),
  ]);
  return { data: { items: rows.rows, itemsCount: total.rows[0].n } };
});

app.get('/brands', async (req) => {
  const q = req.query as Record<string, string | undefined>;
  const page = Math.max(1, Number(q.page) || 1);
  const w = q.search ? 'WHERE name ILIKE $1' : '';
  const args = q.search ? [`%${q.search}%`] : [];
  const [rows, total] = await Promise.all([
    pool.query(
      `SELECT id, brand_no, name FROM bench_brands ${w} ORDER BY brand_no LIMIT 20 OFFSET ${(page - 1) * 20}`,
      args,
    ),
    pool.query(`SELECT count(*)::int AS n FROM bench_brands ${w}`, args),
  ]);
  return { data: { items: rows.rows, itemsCount: total.rows[0].n } };
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
