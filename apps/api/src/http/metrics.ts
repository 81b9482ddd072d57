import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/client.ts';
import type { CloudflareCredentials } from '../integrations/cloudflare/types.ts';
import { providerRegistry } from '../integrations/provider-calls.ts';
import { AppError } from './errors.ts';

// The process's own metrics (CPU, memory, event loop, handles), once per process whatever the number of apps.
const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

/**
 * GET /metrics in the Prometheus text format, behind `Authorization: Bearer <METRICS_TOKEN>`; answers 404 while
 * METRICS_TOKEN is unset. Requests by route template (never the raw URL: ids and query strings stay out) and
 * status; the database pool; jobs by queue (kind) and state; provider calls; each cloud's Cloudflare budget left.
 */
/** What the gauges read, declared here so http/ names nothing above it (the container fits). */
export type MetricsSources = {
  config: { METRICS_TOKEN?: string };
  database: Pick<Database, 'poolStats'>;
  repos: {
    jobs: { countByKindAndState(): Promise<{ kind: string; state: string; n: number }[]> };
    clouds: { labels(): Promise<{ id: string; email: string }[]> };
  };
  services: { clouds: { credentials(id: string): Promise<CloudflareCredentials> } };
  cloudflare: { budgetLeft(creds: CloudflareCredentials): Promise<number> };
};

export function installMetrics(app: FastifyInstance, c: MetricsSources) {
  const registry = new Registry();
  const requests = new Counter({
    name: 'fleetdesk_http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'fleetdesk_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'fleetdesk_db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting clients, max)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = c.database.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'active' }, s.total - s.idle);
      this.set({ state: 'waiting' }, s.waiting);
      this.set({ state: 'max' }, s.max);
    },
  });
  new Gauge({
    name: 'fleetdesk_jobs',
    help: 'Jobs by queue (job kind) and state',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await c.repos.jobs.countByKindAndState()) this.set({ queue: r.kind, state: r.state }, r.n);
    },
  });
  new Gauge({
    name: 'fleetdesk_cloudflare_budget_left',
    help: "Requests left in each cloud's Cloudflare request budget window",
    labelNames: ['cloud_id', 'email'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const cloud of await c.repos.clouds.labels()) {
        const creds = await c.services.clouds.credentials(cloud.id).catch(() => null);
        if (!creds || (!creds.token && !creds.globalAPIKey)) continue;
        this.set({ cloud_id: cloud.id, email: cloud.email }, await c.cloudflare.budgetLeft(creds));
      }
    },
  });

  app.addHook('onResponse', async (req, reply) => {
    // The route's template (/api/domains/:id), or one label for everything no route matched.
    const route = req.routeOptions.url ?? 'unmatched';
    const labels = { method: req.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });

  const token = c.config.METRICS_TOKEN;
  app.get('/metrics', { config: { access: 'public' }, schema: { hide: true } }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    if (!token) throw new AppError(404, 'metrics_off', 'Metrics are off: set METRICS_TOKEN to turn them on');
    const given = /^Bearer (.{1,600})$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!crypto.timingSafeEqual(digest(given), digest(token))) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new AppError(401, 'unauthorized', 'A valid metrics token is required (Authorization: Bearer …)');
    }
    const text = [await processRegistry.metrics(), await providerRegistry.metrics(), await registry.metrics()];
    return reply.type(registry.contentType).send(text.join('\n'));
  });
}
