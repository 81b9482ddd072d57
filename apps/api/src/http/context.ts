import type { Rule } from '@fleetdesk/contract';

/** Who is acting, passed from routes into services (for permission-aware logic and the audit trail). */
export type Actor = {
  userId: string | null;
  username: string | null;
  rules: string[];
  requestId: string | null;
  ip?: string | null;
  /** Set when the call came with a personal API token (modules/api-tokens): audited under its owner with its name. */
  tokenId?: string;
  tokenName?: string;
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
    /** Open to a session that may only set up two-factor sign-in (its role requires it; decision 042). */
    duringTwoFactorSetup?: boolean;
  }
  interface FastifyRequest {
    actor: Actor;
    sessionId: string | null;
    /** The session may only set up two-factor sign-in. */
    twoFactorSetup: boolean;
  }
}
