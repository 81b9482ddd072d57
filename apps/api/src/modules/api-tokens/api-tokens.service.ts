import crypto from 'node:crypto';
import {
  ADMIN_RULE,
  API_TOKEN_MESSAGES,
  API_TOKEN_PREFIX,
  RULES,
  RULE_LABELS,
  hasRule,
  type ApiToken,
  type ApiTokenCreated,
  type ApiTokenInput,
  type ApiTokenOptions,
} from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { assertHoldsAll, rulesNotHeld } from '../users/users.service.ts';
import type { ApiTokenRow, ApiTokensRepository } from './api-tokens.repository.ts';

/** Active tokens one user may hold at once. */
export const MAX_ACTIVE_TOKENS = 50;
const TOKEN_RE = new RegExp(`^\\s*Bearer\\s+(${API_TOKEN_PREFIX}[0-9a-f]{64})\\s*$`, 'i');

/** The token in an Authorization header, when it is an API token (fdt_…), else undefined. */
export function apiTokenFromHeader(header: string | undefined): string | undefined {
  return header ? TOKEN_RE.exec(header)?.[1]?.toLowerCase() : undefined;
}

/**
 * What a token can do now: its rules the owner still holds. A token made with `cnv` follows the owner: all of
 * the owner's rules, whatever they are today. So a token never has more than its owner, and loses what they lose.
 */
export function effectiveTokenRules(tokenRules: readonly string[], ownerRules: readonly string[]): string[] {
  if (tokenRules.includes(ADMIN_RULE)) return [...ownerRules].sort();
  return tokenRules.filter((r) => RULES.includes(r as never) && hasRule(ownerRules, r as never)).sort();
}

/** What a token's call is: its actor, or refused because its owner must set two-factor up first. */
export type TokenAuthentication =
  | { actor: Omit<Actor, 'requestId'>; suspended?: undefined }
  | { suspended: 'two_factor_setup_required'; actor?: undefined };

export function createApiTokensService(deps: {
  database: Database;
  repo: ApiTokensRepository;
  audit: AuditService;
  users: Pick<UsersRepository, 'findById' | 'rulesOf'>;
}) {
  const { database, repo, audit, users } = deps;

  /** An administrator reaches a user's tokens with cnv:users and every rule the user holds (decision 017). */
  async function guardOwner(userId: string, actor: Actor, ex: Parameters<UsersRepository['rulesOf']>[1]) {
    const owner = await users.findById(userId, ex);
    if (!owner) throw new NotFoundError('User not found');
    assertHoldsAll(
      actor,
      await users.rulesOf(userId, ex),
      "manage this user's API tokens",
      'manage them for a user holding it',
    );
    return owner;
  }

  const toApiToken = (r: ApiTokenRow, ownerRules: readonly string[], now = Date.now()): ApiToken => ({
    _id: r.id,
    tokenNo: r.tokenNo,
    name: r.name,
    rules: r.rules,
    effectiveRules: effectiveTokenRules(r.rules, ownerRules),
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt?.toISOString() ?? null,
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    lastUsedIp: r.lastUsedIp,
    status: r.expiresAt && r.expiresAt.getTime() <= now ? 'expired' : 'active',
  });
  const snapshot = (r: ApiTokenRow) => ({
    name: r.name,
    rules: r.rules,
    expiresAt: r.expiresAt?.toISOString() ?? null,
  });

  return {
    async options(actor: Actor): Promise<ApiTokenOptions> {
      const rules = actor.rules.includes(ADMIN_RULE) ? [...RULES] : RULES.filter((r) => actor.rules.includes(r));
      return { rules, noExpiryAllowed: await repo.noExpiryAllowed(actor.userId!) };
    },

    async list(actor: Actor): Promise<ApiToken[]> {
      return (await repo.listForUser(actor.userId!)).map((r) => toApiToken(r, actor.rules));
    },

    /** A new token with a subset of the caller's own rules; its value is answered this once and kept only hashed. */
    async create(input: ApiTokenInput, actor: Actor): Promise<ApiTokenCreated> {
      const userId = actor.userId!;
      const missing = rulesNotHeld(actor, input.rules);
      if (missing.length) {
        const message = API_TOKEN_MESSAGES.notHeld(
          missing.map((r) => RULE_LABELS[r as keyof typeof RULE_LABELS] ?? r).join(', '),
        );
        throw new ForbiddenError(message);
      }
      if (input.expiresInDays === null && !(await repo.noExpiryAllowed(userId))) {
        throw new ValidationError(API_TOKEN_MESSAGES.noExpiry, { expiresInDays: API_TOKEN_MESSAGES.noExpiry });
      }
      const token = `${API_TOKEN_PREFIX}${crypto.randomBytes(32).toString('hex')}`;
      const expiresAt = input.expiresInDays === null ? null : new Date(Date.now() + input.expiresInDays * 86_400_000);
      const row = await database.db.transaction(async (tx) => {
        if ((await repo.countActive(userId, tx)) >= MAX_ACTIVE_TOKENS) {
          throw new ConflictError(API_TOKEN_MESSAGES.tooMany(MAX_ACTIVE_TOKENS), undefined, 'too_many_tokens');
        }
        const r = await repo.insert(
          { userId, name: input.name, tokenHash: hashToken(token), rules: input.rules, expiresAt },
          tx,
        );
        await audit.record(
          actor,
          { action: 'create', entity: 'api_tokens', entityId: r.id, before: null, after: snapshot(r) },
          tx,
        );
        return r;
      });
      return { apiToken: toApiToken(row, actor.rules), token };
    },

    /** Revoked at once: every process checks tokens against the database on each call. */
    async revoke(id: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        const r = await repo.revoke(id, actor.userId!, tx);
        if (!r) throw new NotFoundError(API_TOKEN_MESSAGES.notFound);
        await audit.record(
          actor,
          { action: 'delete', entity: 'api_tokens', entityId: id, before: snapshot(r), after: null },
          tx,
        );
      });
    },

    /** An administrator's view of a user's tokens (the user's page); never their values. */
    async listOf(userId: string, actor: Actor): Promise<ApiToken[]> {
      await guardOwner(userId, actor, database.db);
      const ownerRules = await users.rulesOf(userId, database.db);
      return (await repo.listForUser(userId)).map((r) => toApiToken(r, ownerRules));
    },

    /** An administrator revokes one of a user's tokens; audited under the administrator, naming the owner. */
    async revokeOf(userId: string, id: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        const owner = await guardOwner(userId, actor, tx);
        const r = await repo.revoke(id, userId, tx);
        if (!r) throw new NotFoundError(API_TOKEN_MESSAGES.notFound);
        await audit.record(
          actor,
          {
            action: 'delete',
            entity: 'api_tokens',
            entityId: id,
            before: snapshot(r),
            after: null,
            details: { ownerId: userId, owner: owner.username },
          },
          tx,
        );
      });
    },

    /**
     * The actor behind an API token, or undefined when it is unknown, revoked, expired or its owner inactive.
     * Read from the database on every call (no cache), so a revocation or a lost rule holds on the next request
     * in every process. The last use is written at most once a minute, or when the address changes.
     */
    async authenticate(token: string, ip: string): Promise<TokenAuthentication | undefined> {
      const t = await repo.findActive(hashToken(token));
      if (!t) return undefined;
      // Suspended, not revoked: it works again once the owner has set two-factor up (issue 42).
      if (t.twoFactorMissing) return { suspended: 'two_factor_setup_required' };
      if (!t.lastUsedAt || Date.now() - t.lastUsedAt.getTime() > 60_000 || t.lastUsedIp !== ip) {
        await repo.touch(t.tokenId, ip);
      }
      return {
        actor: {
          userId: t.userId,
          username: t.username,
          rules: effectiveTokenRules(t.tokenRules, t.ownerRules),
          tokenId: t.tokenId,
          tokenName: t.name,
        },
      };
    },
  };
}
export type ApiTokensService = ReturnType<typeof createApiTokensService>;
