import crypto from 'node:crypto';
import { and, like, ne } from 'drizzle-orm';
import { startOidcSim, type OidcSim } from '@fleetdesk/simulators';
import type { Config } from '../config.ts';
import type { Container } from '../container.ts';
import { userIdentities } from '../db/schema/index.ts';

/**
 * The demo's provider accounts: Dana's group maps to Operators (a new user at first sign-in), Olga is for an
 * administrator to link to the seeded "operator", and Sam's provider asserts MFA for the role that requires it.
 */
export const DEMO_SSO_ACCOUNTS = [
  { sub: 'demo-dana', preferred_username: 'dana', password: 'dana-demo', name: 'Dana Devops', groups: ['ops'] },
  { sub: 'demo-olga', preferred_username: 'olga', password: 'olga-demo', name: 'O. Orlova', groups: ['ops'] },
  {
    sub: 'demo-sam',
    preferred_username: 'sam',
    password: 'sam-demo',
    name: 'Sam Security',
    groups: ['security'],
    amr: ['pwd', 'otp'],
  },
] as const;
export const DEMO_SSO_NAME = 'Demo SSO';

/**
 * A real OpenID provider on loopback for the demo's single sign-on. It needs the console's address for the
 * callback, so a demo on PORT=0 (a port chosen at listen time) runs without it.
 */
export async function startDemoSso(config: Config): Promise<{ sim: OidcSim; config: Partial<Config> } | undefined> {
  if (!config.PORT || config.OIDC_ISSUER) return undefined;
  const base = `http://127.0.0.1:${config.PORT}`;
  const client = { id: 'fleetdesk-demo', secret: crypto.randomBytes(24).toString('hex') };
  const sim = await startOidcSim({
    client: { ...client, redirectUris: [`${base}/auth/oidc/callback`] },
    accounts: DEMO_SSO_ACCOUNTS.map((a) => ({
      ...a,
      email: `${a.preferred_username}@sso.fleetdesk.local`,
      groups: [...a.groups],
      amr: 'amr' in a ? [...a.amr] : ['pwd'],
    })),
    hint: `Demo accounts: ${DEMO_SSO_ACCOUNTS.map((a) => `${a.preferred_username} / ${a.password}`).join(', ')}.`,
  });
  return {
    sim,
    config: {
      OIDC_ISSUER: sim.issuer,
      OIDC_CLIENT_ID: client.id,
      OIDC_CLIENT_SECRET: client.secret,
      OIDC_SCOPES: 'openid profile email groups',
      OIDC_REDIRECT_BASE: base,
      OIDC_PROVIDER_NAME: DEMO_SSO_NAME,
      OIDC_ALLOW_CREATE_USERS: true,
      OIDC_GROUP_ROLES: { ops: 'Operators', security: 'Security officers' },
    },
  };
}

/** The simulator's port changes at each start: links made in an earlier run follow it (demo only). */
export async function attachDemoSso(c: Container, issuer: string) {
  await c.database.db
    .update(userIdentities)
    .set({ issuer })
    .where(and(like(userIdentities.issuer, 'http://127.0.0.1:%'), ne(userIdentities.issuer, issuer)));
}
