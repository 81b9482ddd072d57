import type { Rule } from '@fleetdesk/contract';

/** Who is acting, passed from routes into services (for permission-aware logic and the audit trail). */
export type Actor = {
  userId: string | null;
  username: string | null;
  rules: string[];
  requestId: string | null;
  ip?: string | null;
};

export const systemActor = (label = 'system'): Actor => ({
  userId: null,
  username: label,
  rules: ['cnv'],
  requestId: null,
});

/**
 * Every route declares its access: a rule (or a list of rules, any of which grants it), 'authenticated'
 * (any signed-in user) or 'public'.
 * The guard refuses to register a route without it.
 */
export type Access = Rule | readonly Rule[] | 'authenticated' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    actor: Actor;
    sessionId: string | null;
  }
}
