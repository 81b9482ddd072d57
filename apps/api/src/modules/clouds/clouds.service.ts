import type { Cloud, CloudInput, CloudListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { NotFoundError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import { freshReadByKey } from '../../lib/fresh-read.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RegionsService } from '../regions/regions.service.ts';
import type { CloudRow, CloudWrite, CloudsRepository } from './clouds.repository.ts';

/** Marks clouds that another domain of the brand uses; registered by the domains module. */
export type CloudInUseCheck = (cloudIds: string[], brandId: string, exceptDomainId?: string) => Promise<Set<string>>;

export function createCloudsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: CloudsRepository;
  regions: RegionsService;
}) {
  const { database, audit, usage, secrets, repo } = deps;
  const sharedCredentials = freshReadByKey<{
    cloudId: string;
    email: string;
    token: string | null;
    globalAPIKey: string | null;
    accountId: string | null;
    proxyRegionId: string | null;
  }>();
  let inUseCheck: CloudInUseCheck | undefined;

  usage.register('regions', async (regionId, ex) => ({ what: 'clouds', ...(await repo.usageOfRegion(regionId, ex)) }));

  const toWrite = (input: Partial<CloudInput>, current?: Cloud): CloudWrite => {
    const w: CloudWrite = {};
    if (input.email !== undefined) w.email = input.email;
    if (input.proxyRegionId !== undefined) w.proxyRegionId = input.proxyRegionId;
    const sealed = {
      passwordEnc: sealInput(secrets, input.password),
      tokenEnc: sealInput(secrets, input.token),
      globalApiKeyEnc: sealInput(secrets, input.globalAPIKey),
      emailPasswordEnc: sealInput(secrets, input.emailPassword),
    };
    for (const [k, v] of Object.entries(sealed)) if (v !== undefined) (w as Record<string, unknown>)[k] = v;
    // Credentials changed: the cached account id may belong to another account now…
    const emailChanged = w.email !== undefined && w.email.toLowerCase() !== current?.email.toLowerCase();
    const credentialsChanged = emailChanged || w.tokenEnc !== undefined || w.globalApiKeyEnc !== undefined;
    if (current && credentialsChanged) w.accountId = null;
    // …unless the operator names the account, as account-owned tokens (which cannot list accounts) need.
    // A form re-sending the old id along with new credentials does not count as naming it.
    const resent = credentialsChanged && input.accountId === current?.accountId;
    if (input.accountId !== undefined && !resent) w.accountId = input.accountId;
    return w;
  };

  const crud = createCrudService<Cloud, CloudInput, CloudListQuery, CloudWrite & { email: string }>({
    database,
    audit,
    usage,
    repo,
    entity: 'clouds',
    label: 'cloud',
    unique: { clouds_email_lower_uq: { field: 'email', message: 'A cloud with this email already exists' } },
    toWrite,
    validate: (input, _current, tx) =>
      deps.regions.assertExists(input.proxyRegionId, 'proxyRegionId', 'The proxy region does not exist', tx),
    // Sealed values change when a secret changes, and the audit redacts them by name.
    snapshot: async (id, ex) => {
      const row = await repo.findRow(id, ex);
      return (
        row && {
          email: row.email,
          proxyRegionId: row.proxyRegionId,
          password: row.passwordEnc,
          token: row.tokenEnc,
          globalAPIKey: row.globalApiKeyEnc,
          emailPassword: row.emailPasswordEnc,
        }
      );
    },
  });

  return {
    ...crud,
    setInUseCheck(check: CloudInUseCheck) {
      inUseCheck = check;
    },
    async list(q: CloudListQuery) {
      const result = await crud.list(q);
      if (!q.checkInUseBrandId) return result;
      const marks = inUseCheck
        ? await inUseCheck(
            result.items.map((c) => c._id),
            q.checkInUseBrandId,
            q.checkInUseBrandIdDomainId,
          )
        : new Set<string>();
      return { ...result, items: result.items.map((c) => ({ ...c, isInUseBrandId: marks.has(c._id) })) };
    },
    reveal: createRevealer<CloudRow>({
      database,
      audit,
      secrets,
      entity: 'clouds',
      label: 'cloud',
      load: (id, ex) => repo.findRow(id, ex),
      columns: {
        password: (r) => r.passwordEnc,
        token: (r) => r.tokenEnc,
        globalAPIKey: (r) => r.globalApiKeyEnc,
        emailPassword: (r) => r.emailPasswordEnc,
      },
    }),
    /** Decrypted credentials for the Cloudflare client; never leaves the server. */
    /**
     * The cloud's credentials, opened. Callers asking at once share one read (a fleet step per domain asks for
     * its cloud's), never one that started before they asked: a changed token is used from the next call on.
     */
    credentials(id: string) {
      return sharedCredentials(id, async () => {
        const r = await repo.findRow(id);
        if (!r) throw new NotFoundError('Cloud not found');
        const open = (v: string | null) => (v ? secrets.decrypt(v) : null);
        return {
          cloudId: r.id,
          email: r.email,
          token: open(r.tokenEnc),
          globalAPIKey: open(r.globalApiKeyEnc),
          accountId: r.accountId,
          proxyRegionId: r.proxyRegionId,
        };
      });
    },
    async rememberAccountId(id: string, accountId: string) {
      await repo.update(id, { accountId });
    },
  };
}
export type CloudsService = ReturnType<typeof createCloudsService>;
