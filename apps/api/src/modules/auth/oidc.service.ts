import crypto from 'node:crypto';
import * as oidc from 'openid-client';
import {
  IDENTITY_LINK_HOURS,
  type IdentityLink,
  type LoginResult,
  type UserIdentities,
  type UserIdentity,
} from '@fleetdesk/contract';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { ConflictError, NotFoundError, UnauthorizedError, UpstreamError, ValidationError } from '../../http/errors.ts';
import type { Actor } from '../../http/context.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { assertHoldsAll, toSessionUser } from '../users/users.service.ts';
import type { OidcRepository } from './oidc.repository.ts';
import type { SessionMeta, SessionOpener } from './open-session.ts';
import type { TwoFactorService } from './two-factor.service.ts';

/** How long a user has at the provider, and how long the web app has to exchange its one-time code. */
export const LOGIN_MS = 10 * 60_000;
export const EXCHANGE_MS = 60_000;
const PROVIDER = 'OpenID provider';

export type OidcSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  redirectBase: string;
  providerName: string;
  allowCreateUsers: boolean;
  groupsClaim: string;
  groupRoles: Record<string, string>;
  timeoutSeconds: number;
  /** Whether an MFA the provider asserts stands in for the console's two-factor. */
  trustProviderMfa: boolean;
  mfaAmr: string[];
  mfaAcr: string[];
};

export function oidcSettingsOf(c: Config): OidcSettings | undefined {
  if (!c.OIDC_ISSUER || !c.OIDC_CLIENT_ID || !c.OIDC_CLIENT_SECRET || !c.OIDC_REDIRECT_BASE) return undefined;
  return {
    issuer: c.OIDC_ISSUER,
    clientId: c.OIDC_CLIENT_ID,
    clientSecret: c.OIDC_CLIENT_SECRET,
    scopes: c.OIDC_SCOPES,
    redirectBase: c.OIDC_REDIRECT_BASE.replace(/\/+$/, ''),
    providerName: c.OIDC_PROVIDER_NAME,
    allowCreateUsers: c.OIDC_ALLOW_CREATE_USERS,
    groupsClaim: c.OIDC_GROUPS_CLAIM,
    groupRoles: c.OIDC_GROUP_ROLES,
    timeoutSeconds: 15,
    trustProviderMfa: c.OIDC_TRUST_PROVIDER_MFA,
    mfaAmr: c.OIDC_MFA_AMR,
    mfaAcr: c.OIDC_MFA_ACR,
  };
}

/** Why a callback failed, as the web app shows it; the details go to the audit log only. */
export class OidcCallbackError extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** An openid-client error as one audit line: its message, code, and the claim or cause behind it. */
function detailOf(err: unknown): string {
  const e = err as Error & { code?: string; cause?: unknown };
  const cause = e.cause as { claim?: unknown; message?: unknown; code?: unknown } | undefined;
  const parts = [e.message];
  if (e.code) parts.push(`(${e.code})`);
  if (typeof cause?.claim === 'string') parts.push(`claim ${cause.claim}`);
  if (typeof cause?.message === 'string') parts.push(`: ${cause.message}`);
  if (typeof cause?.code === 'string') parts.push(`(${cause.code})`);
  return parts.join(' ').slice(0, 300);
}

const groupsOf = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).filter((g): g is string => typeof g === 'string');

/**
 * The groups claim at a path (issue 43): a top-level claim of that exact name first (namespaced claims such as
 * `https://example.com/groups` hold dots), else the dotted path through objects, as Keycloak's
 * `realm_access.roles`. Undefined when absent.
 */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * Entra ID's group overage: past its limit the ID token names a source (`_claim_names.groups`, or `hasgroups`)
 * instead of listing the groups. The console does not read Microsoft Graph, so it says so rather than mapping none.
 */
export function groupsOverage(claims: Record<string, unknown>, path: string): boolean {
  if (claimAt(claims, path) !== undefined) return false;
  const names = claims._claim_names;
  const top = path.split('.')[0]!;
  const named = !!names && typeof names === 'object' && (Object.hasOwn(names, path) || Object.hasOwn(names, top));
  return named || claims.hasgroups === true || claims.hasgroups === 'true';
}

/** Whether the ID token says a second factor was checked: an `amr` value (RFC 8176) or an `acr` configured as MFA. */
export function providerAssertedMfa(claims: Record<string, unknown>, s: Pick<OidcSettings, 'mfaAmr' | 'mfaAcr'>) {
  const amr = Array.isArray(claims.amr) ? claims.amr.filter((v): v is string => typeof v === 'string') : [];
  if (amr.some((v) => s.mfaAmr.includes(v))) return true;
  return typeof claims.acr === 'string' && s.mfaAcr.includes(claims.acr);
}

const toIdentity = (r: {
  id: string;
  issuer: string;
  subject: string;
  createdAt: Date;
  lastLoginAt: Date | null;
}): UserIdentity => ({
  _id: r.id,
  issuer: r.issuer,
  subject: r.subject,
  dateCreated: r.createdAt.toISOString(),
  dateLastLogin: r.lastLoginAt?.toISOString() ?? null,
});

/** A username from the provider's claims, kept to the characters the console's usernames use. */
function usernameFrom(claims: Record<string, unknown>, sub: string): string {
  const raw =
    (typeof claims.preferred_username === 'string' && claims.preferred_username) ||
    (typeof claims.email === 'string' && claims.email.split('@')[0]) ||
    `sso-${sub}`;
  const clean = raw.replace(/[^\w.@-]/g, '').slice(0, 60);
  return clean || `sso-${crypto.randomBytes(4).toString('hex')}`;
}

export function createOidcService(deps: {
  database: Database;
  repo: OidcRepository;
  users: UsersRepository;
  audit: AuditService;
  secrets: SecretBox;
  openSession: SessionOpener;
  twoFactor: Pick<TwoFactorService, 'afterPassword'>;
  settings: OidcSettings | undefined;
  passwordSignIn: boolean;
}) {
  const { database, repo, users, audit, secrets, openSession, twoFactor, settings, passwordSignIn } = deps;
  let discovered: Promise<oidc.Configuration> | undefined;
  let lastPurge = 0;
  const callbackUrl = settings ? `${settings.redirectBase}/auth/oidc/callback` : '';

  /** The provider's metadata, fetched once per process (again after a failure). */
  function configuration(s: OidcSettings): Promise<oidc.Configuration> {
    discovered ??= (async () => {
      const url = new URL(s.issuer);
      const insecure = url.protocol === 'http:';
      const cfg = await oidc.discovery(url, s.clientId, s.clientSecret, undefined, {
        // Plain http is allowed by the configuration check only for a provider on loopback.
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: s.timeoutSeconds,
      });
      cfg.timeout = s.timeoutSeconds;
      // openid-client trusts the token endpoint's TLS by default; this checks the ID token's signature against
      // the provider's JWKS as well (decision 042).
      oidc.enableNonRepudiationChecks(cfg);
      return cfg;
    })();
    discovered.catch(() => (discovered = undefined));
    return discovered;
  }

  function enabled(): OidcSettings {
    if (!settings) throw new ValidationError('Single sign-on is not configured', undefined, 'oidc_off');
    return settings;
  }

  const failureActor = (meta: SessionMeta, userId: string | null = null, username: string | null = null): Actor => ({
    userId,
    username: username ?? 'oidc',
    rules: [],
    requestId: meta.requestId,
    ip: meta.ip,
  });

  /** Grants the roles the user's groups map to and removes mapped roles no longer granted; others are untouched. */
  async function syncRoles(userId: string, claims: Record<string, unknown>, s: OidcSettings, actor: Actor) {
    const mappedNames = [...new Set(Object.values(s.groupRoles))];
    if (!mappedNames.length) return;
    await database.db.transaction(async (tx) => {
      const known = await repo.rolesByNames(mappedNames, tx);
      const idOf = new Map(known.map((r) => [r.name.toLowerCase(), r.id]));
      const managed = new Set(known.map((r) => r.id));
      const granted = new Set(
        groupsOf(claimAt(claims, s.groupsClaim))
          .map((g) => s.groupRoles[g])
          .filter((n): n is string => !!n)
          .map((n) => idOf.get(n.toLowerCase()))
          .filter((id): id is string => !!id),
      );
      const current = new Set(await repo.roleIdsOf(userId, tx));
      const add = [...granted].filter((id) => !current.has(id));
      const remove = [...current].filter((id) => managed.has(id) && !granted.has(id));
      if (!add.length && !remove.length) return;
      await repo.addRoles(userId, add, tx);
      await repo.removeRoles(userId, remove, tx);
      const nameOf = new Map(known.map((r) => [r.id, r.name]));
      await audit.record(
        actor,
        {
          action: 'update',
          entity: 'users',
          entityId: userId,
          details: {
            via: 'oidc group mapping',
            rolesAdded: add.map((id) => nameOf.get(id)),
            rolesRemoved: remove.map((id) => nameOf.get(id)),
          },
        },
        tx,
      );
    });
  }

  /** The linked user, or a new one when allowed; never matched by email or username alone. */
  async function linkedUser(
    iss: string,
    sub: string,
    claims: Record<string, unknown>,
    s: OidcSettings,
    meta: SessionMeta,
  ) {
    const identity = await repo.findIdentity(iss, sub);
    if (identity) {
      await repo.touchIdentity(identity.id);
      return users.findById(identity.userId);
    }
    if (!s.allowCreateUsers) {
      throw new OidcCallbackError(
        'no_user',
        `no user is linked to subject ${sub.slice(0, 100)} and creating users is off`,
      );
    }
    const base = usernameFrom(claims, sub);
    // An unusable password: this user signs in at the provider only.
    const passwordHash = await hashPassword(newToken());
    for (let i = 1; i <= 20; i++) {
      const username = i === 1 ? base : `${base}-${i}`;
      if (await users.findByUsername(username)) continue;
      return database.db.transaction(async (tx) => {
        const user = await users.insert(
          {
            username,
            name: (typeof claims.name === 'string' && claims.name.slice(0, 200)) || username,
            email: (typeof claims.email === 'string' && claims.email.slice(0, 320)) || '',
            passwordHash,
          },
          tx,
        );
        await repo.insertIdentity({ userId: user.id, issuer: iss, subject: sub }, tx);
        await audit.record(
          { ...failureActor(meta, user.id, user.username) },
          { action: 'create', entity: 'users', entityId: user.id, details: { via: 'oidc', issuer: iss } },
          tx,
        );
        return user;
      });
    }
    throw new OidcCallbackError('username_taken', `no free username near "${base}"`);
  }

  /**
   * A sign-in through an administrator's link invitation: binds (issuer, subject) to the invited user, once. An
   * account already linked to someone else is refused and the invitation stays usable.
   */
  async function linkThroughInvitation(linkId: string, iss: string, sub: string, meta: SessionMeta) {
    return database.db.transaction(async (tx) => {
      const link = await repo.takeLink(linkId, tx);
      if (!link) throw new OidcCallbackError('link_expired', 'the link invitation expired or was replaced');
      const identity = await repo.findIdentity(iss, sub, tx);
      if (identity && identity.userId !== link.userId) {
        throw new OidcCallbackError('identity_taken', `subject ${sub.slice(0, 100)} is linked to another user`);
      }
      const user = await users.findById(link.userId, tx);
      if (!user) throw new OidcCallbackError('inactive', 'user gone');
      if (identity) await repo.touchIdentity(identity.id, tx);
      else await repo.insertIdentity({ userId: user.id, issuer: iss, subject: sub }, tx);
      await audit.record(
        failureActor(meta, user.id, user.username),
        {
          action: 'update',
          entity: 'users',
          entityId: user.id,
          details: { identityLinked: { issuer: iss, subject: sub.slice(0, 255) }, via: 'link invitation' },
        },
        tx,
      );
      return user;
    });
  }

  /** Who may link or unlink a user's sign-in: cnv:users and every rule of that user (decision 017). */
  async function guard(userId: string, actor: Actor, ex: Parameters<UsersRepository['rulesOf']>[1]) {
    const user = await users.findById(userId, ex);
    if (!user) throw new NotFoundError('User not found');
    assertHoldsAll(
      actor,
      await users.rulesOf(userId, ex),
      "change this user's sign-in",
      'change it for a user holding it',
    );
    return user;
  }

  /** Whether the hash a browser's cookie holds is the one of this value (the browser binding, oidc-cookie.ts). */
  const boundTo = (cookieHash: string | undefined, value: string) =>
    !!cookieHash && crypto.timingSafeEqual(Buffer.from(cookieHash, 'utf8'), Buffer.from(hashToken(value), 'utf8'));

  return {
    /** Whether the console is served over https (its cookies are then Secure). */
    secureCookies: !!settings && settings.redirectBase.startsWith('https:'),

    /** What the sign-in page needs to know; nothing secret. */
    publicConfig() {
      return {
        enabled: !!settings,
        providerName: settings?.providerName ?? null,
        passwordSignIn,
      };
    },

    /**
     * Starts a sign-in: a state, a PKCE verifier and a nonce kept for the callback; the provider's address. With
     * a link invitation's token, the sign-in links the provider account to the invited user. `stateHash` is for
     * the browser's cookie: the callback is taken only from the browser that started (oidc-cookie.ts).
     */
    async start(linkToken?: string): Promise<{ location: string; stateHash?: string }> {
      const s = enabled();
      if (Date.now() - lastPurge > 600_000) {
        lastPurge = Date.now();
        await repo.purgeExpired();
      }
      let linkId: string | null = null;
      if (linkToken !== undefined) {
        const link = /^[0-9a-f]{64}$/i.test(linkToken) ? await repo.findLinkByToken(hashToken(linkToken)) : undefined;
        // A browser followed this address: it goes to the web page that says why.
        if (!link) return { location: `${s.redirectBase}/login/sso?error=link_expired` };
        linkId = link.id;
      }
      let cfg: oidc.Configuration;
      try {
        cfg = await configuration(s);
      } catch (err) {
        throw new UpstreamError(PROVIDER, `${PROVIDER}: discovery failed (${(err as Error).message.slice(0, 200)})`);
      }
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      await repo.insertLogin({
        stateHash: hashToken(state),
        codeVerifier: secrets.encrypt(verifier),
        nonce,
        expiresAt: new Date(Date.now() + LOGIN_MS),
        linkId,
      });
      const location = oidc
        .buildAuthorizationUrl(cfg, {
          redirect_uri: callbackUrl,
          scope: s.scopes,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        .toString();
      return { location, stateHash: hashToken(state) };
    },

    /**
     * The provider's answer: state taken once, code exchanged with the PKCE verifier, the ID token verified (its
     * signature against the provider's JWKS, issuer, audience, expiry, nonce). Only the browser that started may
     * call it (`boundState`, its cookie's hash): a callback address opened elsewhere is refused and its sign-in
     * stays usable where it began. Returns where to send the browser, and the code's hash for its next cookie.
     */
    async callback(
      query: Record<string, string | undefined>,
      meta: SessionMeta,
      boundState: string | undefined,
    ): Promise<{ location: string; exchangeHash?: string }> {
      const s = enabled();
      const web = `${s.redirectBase}/login/sso`;
      try {
        const state = query.state ?? '';
        if (!boundTo(boundState, state)) {
          throw new OidcCallbackError(
            'other_browser',
            'the callback came to a browser that did not start this sign-in',
          );
        }
        const login = state && state.length <= 200 ? await repo.takeLogin(hashToken(state)) : undefined;
        if (!login) throw new OidcCallbackError('bad_state', 'unknown, used or expired state');
        if (query.error) {
          throw new OidcCallbackError('provider_error', `provider: ${String(query.error).slice(0, 100)}`);
        }
        const cfg = await configuration(s);
        const current = new URL(callbackUrl);
        for (const [k, v] of Object.entries(query)) if (v !== undefined) current.searchParams.set(k, v);
        const tokens = await oidc.authorizationCodeGrant(cfg, current, {
          pkceCodeVerifier: secrets.decrypt(login.codeVerifier),
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
        const idClaims = tokens.claims();
        if (!idClaims) throw new OidcCallbackError('no_id_token', 'no ID token');
        let claims: Record<string, unknown> = { ...idClaims };
        // Some providers put profile and groups only behind the userinfo endpoint.
        if ((claimAt(claims, s.groupsClaim) === undefined || !claims.preferred_username) && tokens.access_token) {
          const info = await oidc.fetchUserInfo(cfg, tokens.access_token, idClaims.sub);
          claims = { ...info, ...claims };
        }
        // Mapping no groups would take the mapped roles away: the person is told instead (issue 43).
        if (Object.keys(s.groupRoles).length && groupsOverage(claims, s.groupsClaim)) {
          throw new OidcCallbackError('groups_overage', `the provider signalled a group overage for ${s.groupsClaim}`);
        }
        const user = login.linkId
          ? await linkThroughInvitation(login.linkId, idClaims.iss, idClaims.sub, meta)
          : await linkedUser(idClaims.iss, idClaims.sub, claims, s, meta);
        if (!user || user.status !== 'active') throw new OidcCallbackError('inactive', 'user inactive or gone');
        await syncRoles(user.id, claims, s, failureActor(meta, user.id, user.username));
        const code = newToken();
        await repo.insertExchange({
          exchangeHash: hashToken(code),
          userId: user.id,
          expiresAt: new Date(Date.now() + EXCHANGE_MS),
          providerMfa: providerAssertedMfa(idClaims, s),
        });
        return { location: `${web}?code=${code}`, exchangeHash: hashToken(code) };
      } catch (err) {
        const reason = err instanceof OidcCallbackError ? err.reason : 'invalid_response';
        await audit.record(failureActor(meta), {
          action: 'login_failed',
          entity: 'sessions',
          entityId: null,
          details: { ip: meta.ip, method: 'oidc', reason, detail: detailOf(err) },
        });
        return { location: `${web}?error=${reason}` };
      }
    },

    /**
     * The web app's one-time code for a session: the token travels in a response header, never in a URL. Only the
     * browser the callback answered may spend it (`boundCode`, its cookie's hash).
     */
    async exchange(
      code: string,
      meta: SessionMeta,
      boundCode: string | undefined,
    ): Promise<{ token?: string; result: LoginResult }> {
      const s = enabled();
      const bound = boundTo(boundCode, code);
      const taken = bound ? await repo.takeExchange(hashToken(code)) : undefined;
      const user = taken ? await users.findById(taken.userId) : undefined;
      if (!user || user.status !== 'active') {
        await audit.record(failureActor(meta, user?.id ?? null, user?.username ?? null), {
          action: 'login_failed',
          entity: 'sessions',
          entityId: user?.id ?? null,
          details: {
            ip: meta.ip,
            method: 'oidc',
            reason: user ? 'inactive user' : bound ? 'unknown or used code' : 'other browser',
          },
        });
        throw new UnauthorizedError('This sign-in link has expired or was already used', 'oidc_code_invalid');
      }
      // The provider's asserted MFA stands in for the console's second factor when trusted; otherwise the
      // console asks for its own code (or its setup, when a role requires it), as after a password (decision 042).
      if (!s.trustProviderMfa || !taken!.providerMfa) {
        const outcome = await twoFactor.afterPassword(user, meta, 'oidc');
        return { token: outcome.token, result: outcome.result };
      }
      const { token, user: fresh } = await openSession(user, meta, { twoFactorSetup: false, method: 'oidc with mfa' });
      return { token, result: { user: toSessionUser(fresh), twoFactorSetupRequired: false } };
    },

    /** The user page's card: linked provider accounts and the pending invitation (never its token). */
    async identities(userId: string): Promise<UserIdentities> {
      if (!(await users.findById(userId))) throw new NotFoundError('User not found');
      const pending = settings ? await repo.pendingLinkOf(userId) : undefined;
      return {
        ssoEnabled: !!settings,
        providerName: settings?.providerName ?? null,
        identities: (await repo.identitiesOf(userId)).map(toIdentity),
        pendingLink: pending
          ? { dateCreated: pending.createdAt.toISOString(), dateExpires: pending.expiresAt.toISOString() }
          : null,
      };
    },

    /** A one-time link invitation for the user (replacing a pending one); its address is answered this once. */
    async createLink(userId: string, actor: Actor): Promise<IdentityLink> {
      const s = enabled();
      const token = newToken();
      const expiresAt = new Date(Date.now() + IDENTITY_LINK_HOURS * 3_600_000);
      await database.db.transaction(async (tx) => {
        const user = await guard(userId, actor, tx);
        if (user.status !== 'active') throw new ConflictError('This user is deactivated', undefined, 'user_inactive');
        await repo.replaceLink({ userId, tokenHash: hashToken(token), createdBy: actor.userId, expiresAt }, tx);
        await audit.record(
          actor,
          { action: 'update', entity: 'users', entityId: userId, details: { identityLink: 'invitation created' } },
          tx,
        );
      });
      return { url: `${s.redirectBase}/auth/oidc/start?link=${token}`, dateExpires: expiresAt.toISOString() };
    },

    async cancelLink(userId: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        await guard(userId, actor, tx);
        if (!(await repo.deleteLinkOf(userId, tx))) throw new NotFoundError('No link invitation is pending');
        await audit.record(
          actor,
          { action: 'update', entity: 'users', entityId: userId, details: { identityLink: 'invitation cancelled' } },
          tx,
        );
      });
    },

    /** Links by the subject the provider's admin console shows, at the configured provider; never a taken one. */
    async linkSubject(userId: string, subject: string, actor: Actor): Promise<UserIdentity> {
      const s = enabled();
      return database.db.transaction(async (tx) => {
        await guard(userId, actor, tx);
        const taken = await repo.findIdentity(s.issuer, subject, tx);
        if (taken) {
          const message =
            taken.userId === userId
              ? 'This account is already linked to this user'
              : 'This account is already linked to another user';
          throw new ConflictError(message, { subject: message }, 'identity_taken');
        }
        const row = await repo.insertIdentity({ userId, issuer: s.issuer, subject, lastLoginAt: null }, tx);
        await audit.record(
          actor,
          {
            action: 'update',
            entity: 'users',
            entityId: userId,
            details: { identityLinked: { issuer: s.issuer, subject }, via: 'subject' },
          },
          tx,
        );
        return toIdentity(row);
      });
    },

    /** Unlinks a provider account: single sign-on with it no longer signs in as this user. */
    async unlink(userId: string, identityId: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        await guard(userId, actor, tx);
        const gone = await repo.deleteIdentity(userId, identityId, tx);
        if (!gone) throw new NotFoundError('Linked account not found');
        await audit.record(
          actor,
          {
            action: 'update',
            entity: 'users',
            entityId: userId,
            details: { identityUnlinked: { issuer: gone.issuer, subject: gone.subject } },
          },
          tx,
        );
      });
    },
  };
}
export type OidcService = ReturnType<typeof createOidcService>;
