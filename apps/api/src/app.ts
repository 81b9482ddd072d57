import Fastify, { type FastifyServerOptions } from 'fastify';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatorCompiler, jsonSchemaTransform } from 'fastify-type-provider-zod';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyStatic from '@fastify/static';
import fastifyCompress from '@fastify/compress';
import zlib from 'node:zlib';
import { z } from 'zod';
import { WebhookPayloadSchema } from '@fleetdesk/contract';
import type { Container } from './container.ts';
import { installAuthGuard, type RegisteredRoute } from './http/auth-guard.ts';
import { installErrorHandler, loggableError } from './http/error-handler.ts';
import { serializerCompiler } from './http/serializer.ts';
import { DOCS_CSP, cspNonce, installSecurity, loggableRequest, serverLimits } from './http/security.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { twoFactorRoutes } from './modules/auth/two-factor.routes.ts';
import { oidcRoutes } from './modules/auth/oidc.routes.ts';
import { apiTokensRoutes } from './modules/api-tokens/api-tokens.routes.ts';
import { sessionsRoutes } from './modules/sessions/sessions.routes.ts';
import { brandsRoutes } from './modules/brands/brands.routes.ts';
import { regionsRoutes } from './modules/regions/regions.routes.ts';
import { cloudsRoutes } from './modules/clouds/clouds.routes.ts';
import { proxiesRoutes } from './modules/proxies/proxies.routes.ts';
import { serversRoutes } from './modules/servers/servers.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { rolesRoutes } from './modules/roles/roles.routes.ts';
import { firewallRulesRoutes } from './modules/firewall-rules/firewall-rules.routes.ts';
import { dnsTemplatesRoutes } from './modules/dns-templates/dns-templates.routes.ts';
import { launchProfilesRoutes } from './modules/launch-profiles/launch-profiles.routes.ts';
import { domainRegistratorsRoutes } from './modules/domain-registrators/domain-registrators.routes.ts';
import { domainRegistratorsContactsRoutes } from './modules/domain-registrators-contacts/domain-registrators-contacts.routes.ts';
import { healthRoutes } from './http/health.ts';
import { fleetHealthRoutes } from './modules/health/health.routes.ts';
import { trafficRoutes } from './modules/traffic/traffic.routes.ts';
import { installMetrics } from './http/metrics.ts';
import { domainsRoutes } from './modules/domains/domains.routes.ts';
import { cloudFlareRoutes } from './modules/cloud-flare/cloud-flare.routes.ts';
import { zoneFileRoutes } from './modules/cloud-flare/zone-file.routes.ts';
import { directAdminRoutes } from './modules/direct-admin/direct-admin.routes.ts';
import { ispManagerRoutes } from './modules/ispmanager/ispmanager.routes.ts';
import { jobsRoutes } from './modules/jobs/jobs.routes.ts';
import { domainJobsRoutes } from './modules/jobs/domain-jobs.routes.ts';
import { registrarRoutes } from './modules/domain-registrators/registrar.routes.ts';
import { yandexWebmasterRoutes } from './modules/yandex-webmaster/yandex-webmaster.routes.ts';
import { googleSearchRoutes } from './modules/google-search/google-search.routes.ts';
import { contentFilesRoutes } from './modules/content-files/content-files.routes.ts';
import { contentSnapshotsRoutes } from './modules/content-snapshots/content-snapshots.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { fleetRoutes } from './modules/fleet/fleet.routes.ts';
import { fleetStateRoutes } from './modules/fleet/fleet-state.routes.ts';
import { importsRoutes } from './modules/imports/imports.routes.ts';
import { plansRoutes } from './modules/plans/plans.routes.ts';
import { notificationChannelsRoutes } from './modules/notification-channels/notification-channels.routes.ts';
import { alertRulesRoutes } from './modules/alert-rules/alert-rules.routes.ts';
import { alertsRoutes } from './modules/alerts/alerts.routes.ts';
import { launchesRoutes } from './modules/launches/launches.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: RegisteredRoute[];
  }
}

export const DEFAULT_WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

const REDACT = [
  'req.headers.authorization',
  'req.headers["x-auth-key"]',
  'req.body.password',
  'res.headers.authorization',
];

/** br, else gzip, when the Accept-Encoding header allows it (a q of 0 refuses). */
export function pageEncoding(header: string | string[] | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Set<string>();
  for (const part of String(header ?? '')
    .split(',')
    .slice(0, 20)) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && !(Number(q.slice(2)) > 0)) continue;
    accepted.add(name.trim());
  }
  return accepted.has('br') ? 'br' : accepted.has('gzip') ? 'gzip' : undefined;
}

/** Builds the app without listening, so tests use inject. */
export async function buildApp(
  c: Container,
  opts: { logger?: FastifyServerOptions['logger']; webDist?: string | null } = {},
) {
  const logger = opts.logger ?? {
    level: c.config.LOG_LEVEL,
    redact: { paths: REDACT, censor: '[redacted]' },
    // Any error logged anywhere goes through the same scrubbing as the error handler's.
    serializers: { err: (e) => loggableError(e) as { type: string; message: string; stack: string } },
  };
  const app = Fastify({
    // Request URLs are logged without their query values, whoever passed the logger (http/security.ts).
    logger:
      logger && typeof logger === 'object'
        ? { ...logger, serializers: { ...logger.serializers, req: loggableRequest as never } }
        : logger,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    // Trusted proxies, body limit, timeouts: see http/security.ts and decision 013.
    ...serverLimits(c.config),
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    reply.header('access-control-expose-headers', 'Authorization, X-Request-Id');
  });
  const webDist = opts.webDist === undefined ? (c.config.WEB_DIST ?? DEFAULT_WEB_DIST) : opts.webDist;
  const serveWeb = !!webDist && fs.existsSync(path.join(webDist, 'index.html'));
  const indexHtml = serveWeb ? fs.readFileSync(path.join(webDist, 'index.html'), 'utf8') : '';
  installErrorHandler(app, {
    // The SPA owns every other GET that is not an API path.
    fallback: (req, reply) => {
      const url = req.url.split('?')[0] ?? '';
      if (!serveWeb || req.method !== 'GET' || url.startsWith('/api/') || url.startsWith('/auth/')) return undefined;
      // The page names this answer's CSP style nonce (see http/security.ts); it is never cached.
      const page = indexHtml.replaceAll('__CSP_NONCE__', cspNonce(reply.raw));
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('vary', 'accept-encoding');
      // The not-found handler is no route, so @fastify/compress never sees it: the page is compressed here.
      const encoding = page.length > 1024 ? pageEncoding(req.headers['accept-encoding']) : undefined;
      if (encoding === 'br') {
        const body = zlib.brotliCompressSync(page, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: page.length },
        });
        return reply.header('content-encoding', 'br').send(body);
      }
      if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(zlib.gzipSync(page, { level: 6 }));
      return reply.send(page);
    },
  });
  await installSecurity(app, c.config, c.database);
  // Answers above 1 KB go out compressed (brotli, else gzip), streams too (the CSV export). Brotli at a middle
  // quality: its best quality costs more CPU per answer than it saves on the wire.
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
    zlibOptions: { level: 6 },
  });
  const routes = installAuthGuard(app, c.callers, {
    docsPublic: c.config.API_DOCS_PUBLIC ?? c.config.DEMO,
  });
  app.decorate('registeredRoutes', routes);

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Fleetdesk API', version: '0.1.0' },
      components: {
        // What a webhook channel receives (issue 29): not a route of ours, so documented as a schema.
        schemas: {
          AlertWebhookPayload: z.toJSONSchema(WebhookPayloadSchema, { io: 'output' }) as Record<string, unknown>,
        },
        securitySchemes: {
          token: {
            type: 'http',
            scheme: 'bearer',
            description: 'A session token, answered in the Authorization header of POST /auth/login.',
          },
          apiToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'fdt_<64 hex>',
            description:
              'A personal API token (profile → API tokens): `Authorization: Bearer fdt_…`. It holds a subset of its ' +
              "owner's rules, has its own rate limit, and can never manage tokens, sessions or two-factor, change " +
              'users or roles, or reveal stored secrets (403 token_forbidden).',
          },
        },
      },
      security: [{ token: [] }, { apiToken: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: DOCS_CSP });

  // Past the per-socket checks Fastify does, a cap on how many sockets the process holds at once.
  app.server.maxConnections = c.config.MAX_CONNECTIONS;

  installMetrics(app, c);
  await app.register(healthRoutes(c));
  await app.register(authRoutes(c.services.auth, { demo: c.config.DEMO }));
  await app.register(twoFactorRoutes(c.services.twoFactor));
  await app.register(oidcRoutes(c.services.oidc));
  await app.register(apiTokensRoutes(c.services.apiTokens));
  await app.register(sessionsRoutes(c.services.sessions));
  await app.register(auditRoutes(c.services.audit));
  await app.register(brandsRoutes(c.services.brands));
  await app.register(regionsRoutes(c.services.regions));
  await app.register(cloudsRoutes(c.services.clouds));
  await app.register(proxiesRoutes(c.services.proxies));
  await app.register(serversRoutes(c.services.servers));
  await app.register(usersRoutes(c.services.users));
  await app.register(rolesRoutes(c.services.roles));
  await app.register(firewallRulesRoutes(c.services.firewallRules));
  await app.register(domainRegistratorsRoutes(c.services.domainRegistrators));
  await app.register(domainRegistratorsContactsRoutes(c.services.domainRegistratorsContacts));
  await app.register(dnsTemplatesRoutes(c.services.dnsTemplates));
  await app.register(launchProfilesRoutes(c.services.launchProfiles));
  await app.register(domainsRoutes(c.services.domains));
  await app.register(cloudFlareRoutes(c.services.cloudFlare));
  await app.register(zoneFileRoutes(c.services.zoneFile, c.services.zoneExports));
  await app.register(directAdminRoutes(c.services.directAdmin));
  await app.register(ispManagerRoutes(c.services.ispManager));
  await app.register(jobsRoutes(c.services.jobs));
  await app.register(domainJobsRoutes(c.services.jobs, c.services.parsing));
  await app.register(registrarRoutes(c.services.registrar));
  await app.register(yandexWebmasterRoutes(c.services.yandexWebmaster));
  await app.register(googleSearchRoutes(c.services.googleSearch));
  await app.register(contentFilesRoutes(c.services.contentFiles, c.services.contentFiles.limits));
  await app.register(contentSnapshotsRoutes(c.services.contentSnapshots));
  await app.register(dashboardRoutes(c.services.dashboard));
  await app.register(searchRoutes(c.services.search));
  await app.register(fleetRoutes(c.services.fleet));
  await app.register(fleetStateRoutes(c.services.fleetState));
  await app.register(importsRoutes(c.services.imports));
  await app.register(plansRoutes(c.repos.plans));
  await app.register(launchesRoutes(c.services.launches, c.services.launchBatches));
  await app.register(fleetHealthRoutes(c.services.health, () => c.jobEngine));
  await app.register(trafficRoutes(c.services.traffic));
  await app.register(notificationChannelsRoutes(c.services.notificationChannels));
  await app.register(alertRulesRoutes(c.services.alertRules));
  await app.register(alertsRoutes(c.services.alerts));

  if (serveWeb) {
    await app.register(fastifyStatic, {
      root: webDist!,
      index: false,
      wildcard: false,
      // The build wrote .br and .gz beside each asset (the precompress plugin in apps/web/vite.config.ts): sent when the browser accepts them.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (res, filePath) => {
        // Hashed names under /assets/ never change content; anything else is checked on every use.
        const rel = path.relative(webDist!, filePath).split(path.sep).join('/');
        res.header('cache-control', rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  return app;
}
