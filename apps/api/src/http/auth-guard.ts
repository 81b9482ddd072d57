import type { FastifyInstance } from 'fastify';
import { API_TOKEN_MESSAGES, TWO_FACTOR_MESSAGES, hasAnyRule } from '@fleetdesk/contract';
import type { Access, Actor } from './context.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

export type RegisteredRoute = { method: string; url: string; access: Access };

/**
 * How a caller is known. The container gives it (sessions from modules/auth, personal tokens from
 * modules/api-tokens), so that the guard, below the modules, names none of them (issue 41).
 */
export type CallerAuthenticator = {
  /** The signed-in session behind an Authorization header, if any. */
  session(
    authorization: string | undefined,
  ): Promise<{ actor: Omit<Actor, 'requestId'>; sessionId: string; twoFactorSetup: boolean } | undefined>;
  /** Personal API tokens (decision 042); absent where an app is built without them. */
  tokens?: {
    /** The token an Authorization header carries, if it is one (a session's token is not). */
    fromHeader(authorization: string | undefined): string | undefined;
    authenticate(
      token: string,
      ip: string,
    ): Promise<
      | { actor: Omit<Actor, 'requestId'>; suspended?: undefined }
      | { suspended: 'two_factor_setup_required'; actor?: undefined }
      | undefined
    >;
    /** Some routes a token may never call, whatever its owner's rules. */
    mayCall(method: string, url: string): boolean;
  };
};

const isDocs = (url: string) => url === '/api/docs' || url.startsWith('/api/docs/');
const needsDeclaration = (url: string) => (url.startsWith('/api/') || url.startsWith('/auth/')) && !isDocs(url);

/**
 * Every /api and /auth route must declare its access; registering one without it throws at start-up, so a
 * new route cannot silently be public. Authentication runs in onRequest, before body validation, so an
 * anonymous caller gets 401 rather than a 400 that reveals the schema.
 */
export function installAuthGuard(
  app: FastifyInstance,
  callers: CallerAuthenticator,
  opts: { docsPublic?: boolean } = {},
): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.decorateRequest('actor', null as never);
  app.decorateRequest('sessionId', null);
  app.decorateRequest('twoFactorSetup', false);

  app.addHook('onRoute', (opts) => {
    if (!needsDeclaration(opts.url)) return;
    const access = opts.config?.access;
    if (!access) throw new Error(`Route ${String(opts.method)} ${opts.url} does not declare its access`);
    for (const m of [opts.method].flat()) if (m !== 'HEAD') routes.push({ method: m, url: opts.url, access });
  });

  app.addHook('onRequest', async (req) => {
    req.actor = { userId: null, username: null, rules: [], requestId: String(req.id), ip: req.ip };
    // The OpenAPI document and its viewer: for any signed-in caller unless a setting makes them public.
    const docs = !opts.docsPublic && isDocs(req.routeOptions.url ?? req.url.split('?')[0]!);
    const access = req.routeOptions.config?.access ?? (docs ? 'authenticated' : undefined);
    if (!access || access === 'public') return;
    const tokens = callers.tokens;
    const apiToken = tokens?.fromHeader(req.headers.authorization);
    if (tokens && apiToken) {
      // A personal API token (decision 042): its rules are those its owner still holds, and some routes never.
      const found = await tokens.authenticate(apiToken, req.ip);
      if (!found) throw new UnauthorizedError('This API token is invalid, expired or revoked.', 'invalid_token');
      if (found.suspended) throw new ForbiddenError(API_TOKEN_MESSAGES.suspended, 'two_factor_setup_required');
      req.actor = { ...found.actor, requestId: String(req.id), ip: req.ip };
      if (!tokens.mayCall(req.method, req.routeOptions.url ?? req.url)) {
        throw new ForbiddenError(API_TOKEN_MESSAGES.forbidden, 'token_forbidden');
      }
    } else {
      const found = await callers.session(req.headers.authorization);
      if (!found) throw new UnauthorizedError('Your session has expired or is invalid. Please sign in again.');
      req.actor = { ...found.actor, requestId: String(req.id), ip: req.ip };
      req.sessionId = found.sessionId;
      req.twoFactorSetup = found.twoFactorSetup;
      // A role requires two-factor and the user has none yet: nothing but setting it up (and signing out).
      if (found.twoFactorSetup && !req.routeOptions.config?.duringTwoFactorSetup) {
        throw new ForbiddenError(TWO_FACTOR_MESSAGES.setupRequired, 'two_factor_setup_required');
      }
    }
    if (access !== 'authenticated' && !hasAnyRule(req.actor.rules, access)) {
      // The first rule names the area; the others only read it for their pickers.
      throw new ForbiddenError(
        `You do not have permission for this area (${typeof access === 'string' ? access : access[0]})`,
      );
    }
  });
  return routes;
}
