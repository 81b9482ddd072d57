import type { FastifyInstance } from 'fastify';
import { hasAnyRule } from '@fleetdesk/contract';
import type { AuthService } from '../modules/auth/auth.service.ts';
import type { Access } from './context.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

export type RegisteredRoute = { method: string; url: string; access: Access };

const isDocs = (url: string) => url === '/api/docs' || url.startsWith('/api/docs/');
const needsDeclaration = (url: string) => (url.startsWith('/api/') || url.startsWith('/auth/')) && !isDocs(url);

/**
 * Every /api and /auth route must declare its access; registering one without it throws at start-up, so a
 * new route cannot silently be public. Authentication runs in onRequest, before body validation, so an
 * anonymous caller gets 401 rather than a 400 that reveals the schema.
 */
export function installAuthGuard(app: FastifyInstance, auth: AuthService): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.decorateRequest('actor', null as never);
  app.decorateRequest('sessionId', null);

  app.addHook('onRoute', (opts) => {
    if (!needsDeclaration(opts.url)) return;
    const access = opts.config?.access;
    if (!access) throw new Error(`Route ${String(opts.method)} ${opts.url} does not declare its access`);
    for (const m of [opts.method].flat()) if (m !== 'HEAD') routes.push({ method: m, url: opts.url, access });
  });

  app.addHook('onRequest', async (req) => {
    req.actor = { userId: null, username: null, rules: [], requestId: String(req.id), ip: req.ip };
    const access = req.routeOptions.config?.access;
    if (!access || access === 'public') return;
    const found = await auth.authenticate(req.headers.authorization);
    if (!found) throw new UnauthorizedError('Your session has expired or is invalid. Please sign in again.');
    req.actor = { ...found.actor, requestId: String(req.id), ip: req.ip };
    req.sessionId = found.sessionId;
    if (access !== 'authenticated' && !hasAnyRule(found.actor.rules, access)) {
      // The first rule names the area; the others only read it for their pickers.
      throw new ForbiddenError(
        `You do not have permission for this area (${typeof access === 'string' ? access : access[0]})`,
      );
    }
  });
  return routes;
}
