import { z } from 'zod';
import { systemActor } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import type { ProxiesService } from '../../modules/proxies/proxies.service.ts';
import type { ServersService } from '../../modules/servers/servers.service.ts';
import { defineJob } from '../registry.ts';

const actor = systemActor('health check');

/**
 * Every server's connection test, one after the other: status, free space and the last error stay current.
 * A server without an address, key or domains path is skipped (its form says what is missing).
 */
export const serversHealthCheckJob = (deps: { servers: ServersService; allIds: () => Promise<string[]> }) =>
  defineJob({
    kind: 'servers.health-check',
    area: 'cnv:servers',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 10, backoff: false },
    timeoutSeconds: 30 * 60,
    async handler(ctx) {
      const ids = await deps.allIds();
      let online = 0;
      let offline = 0;
      let skipped = 0;
      for (const [i, id] of ids.entries()) {
        await ctx.progress({ done: i, total: ids.length, unit: 'servers' });
        try {
          await deps.servers.testConnection(id, actor, { audit: false });
          online++;
        } catch (err) {
          // An incomplete record (400) or a server deleted meanwhile (404) is skipped; anything else is offline.
          if (err instanceof AppError && err.status < 500) skipped++;
          else offline++;
        }
      }
      await ctx.progress({ done: ids.length, total: ids.length, unit: 'servers' }, { force: true });
      return { servers: ids.length, online, offline, skipped };
    },
  });

/** Every proxy's check through the check URL; the Cloudflare routing prefers proxies whose last check passed. */
export const proxiesHealthCheckJob = (deps: { proxies: ProxiesService; allIds: () => Promise<string[]> }) =>
  defineJob({
    kind: 'proxies.health-check',
    area: 'cnv:proxies',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 10, backoff: false },
    timeoutSeconds: 30 * 60,
    async handler(ctx) {
      const ids = await deps.allIds();
      let ok = 0;
      let failed = 0;
      for (const [i, id] of ids.entries()) {
        await ctx.progress({ done: i, total: ids.length, unit: 'proxies' });
        try {
          const r = await deps.proxies.check(id, actor, { audit: false });
          if (r.ok) ok++;
          else failed++;
        } catch {
          failed++;
        }
      }
      await ctx.progress({ done: ids.length, total: ids.length, unit: 'proxies' }, { force: true });
      return { proxies: ids.length, ok, failed };
    },
  });
