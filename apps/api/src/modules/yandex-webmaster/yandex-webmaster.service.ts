import type {
  DomainWebmasterHost,
  OneClickVerify,
  RecrawlQueue,
  RecrawlResult,
  Verification,
  YandexVerificationType,
  YandexWebmasterAccount,
  YandexWebmasterAccountInput,
  YandexWebmasterAccountListQuery,
} from '@fleetdesk/contract';
import { yandexVerificationMarkers } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.ts';
import {
  YandexApiError,
  type WebmasterCredentials,
  type YandexWebmasterClient,
} from '../../integrations/yandex-webmaster/index.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import { ensureTxtRecord, type VerificationDnsPort, type VerificationFilePort } from '../../lib/verification-txt.ts';
import type { AuditService } from '../audit/audit.service.ts';
import {
  BACKLOG_MAX_PER_HOST,
  type WebmasterAccountRow,
  type WebmasterAccountWrite,
  type YandexWebmasterRepository,
} from './yandex-webmaster.repository.ts';

/** Marks accounts that another domain of the brand uses; registered by the domains module. */
export type WebmasterInUseCheck = (ids: string[], brandId: string, exceptDomainId?: string) => Promise<Set<string>>;

/** What one-click verification needs from a domain (the domains and cloud-flare modules answer it). */
export interface WebmasterDomainPort {
  get(domainId: string): Promise<{
    _id: string;
    domainName: string;
    cloudId: string | null;
    cloudZoneId: string | null;
    yandexWebmasterAccountId: string | null;
  }>;
}
/** The existing Cloudflare DNS code, reused for the verification TXT record. */
export type WebmasterDnsPort = VerificationDnsPort;
/** The content-file layer: writes one file in the root of the domain's content directory. */
export type WebmasterFilePort = VerificationFilePort;

export const WEBMASTER_MESSAGES = {
  notFound: 'Yandex Webmaster account not found',
  noToken: 'This Yandex Webmaster account has no API token',
  noAccount: 'The domain has no Yandex Webmaster account: choose one in its Yandex Webmaster tab',
  noZone: 'The domain has no Cloudflare zone: create or link one first',
  noFiles: 'Verification through a file needs the content-file layer, which is not available',
  notApplicable: (t: string, list: string[]) =>
    `Verification type ${t} is not applicable to this host (applicable: ${list.join(', ') || 'none'})`,
  backlogFull: `At most ${BACKLOG_MAX_PER_HOST} URLs can wait for recrawl on one host`,
} as const;

const TERMINAL = new Set(['VERIFIED', 'VERIFICATION_FAILED', 'INTERNAL_ERROR']);
export const isVerificationDone = (v: Verification) => TERMINAL.has(v.verification_state);

export function createYandexWebmasterService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: YandexWebmasterRepository;
  client: YandexWebmasterClient;
}) {
  const { database, audit, usage, secrets, repo, client } = deps;
  let inUseCheck: WebmasterInUseCheck | undefined;
  let domains: WebmasterDomainPort | undefined;
  let dns: WebmasterDnsPort | undefined;
  let files: WebmasterFilePort | undefined;

  const toWrite = (input: Partial<YandexWebmasterAccountInput>): WebmasterAccountWrite => {
    const w: WebmasterAccountWrite = {};
    if (input.name !== undefined) w.name = input.name;
    const token = sealInput(secrets, input.apiToken);
    if (token !== undefined) {
      w.apiTokenEnc = token;
      // Another token may belong to another Yandex user: find the user id again.
      w.userId = null;
    }
    return w;
  };

  const crud = createCrudService<
    YandexWebmasterAccount,
    YandexWebmasterAccountInput,
    YandexWebmasterAccountListQuery,
    WebmasterAccountWrite & { name: string }
  >({
    database,
    audit,
    usage,
    repo,
    entity: 'yandex-webmaster',
    label: 'Yandex Webmaster account',
    toWrite,
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      return r && { name: r.name, apiToken: r.apiTokenEnc };
    },
  });

  /** The account's credentials for the client; the token never leaves the server. */
  const credentials = async (accountId: string): Promise<WebmasterCredentials> => {
    const r: WebmasterAccountRow | undefined = await repo.findRow(accountId);
    if (!r) throw new NotFoundError(WEBMASTER_MESSAGES.notFound);
    if (!r.apiTokenEnc) throw new ValidationError(WEBMASTER_MESSAGES.noToken, { apiToken: WEBMASTER_MESSAGES.noToken });
    return {
      token: secrets.decrypt(r.apiTokenEnc),
      userId: r.userId,
      onUserId: async (userId) => {
        await repo.update(accountId, { userId });
      },
    };
  };

  const hostUrlOf = (domainName: string) => `https://${domainName}`;
  const hostnameOfId = (hostId: string) => hostId.split(':')[1] ?? '';

  async function verify(accountId: string, hostId: string, type: YandexVerificationType, actor: Actor) {
    const c = await credentials(accountId);
    const current = await client.verification(c, hostId);
    const applicable = current.applicable_verifiers ?? [];
    if (!applicable.includes(type)) {
      const message = WEBMASTER_MESSAGES.notApplicable(type, applicable);
      throw new ValidationError(message, { verificationType: message });
    }
    const v = await client.verify(c, hostId, type);
    await audit.record(actor, {
      action: 'verify_host',
      entity: 'yandex-webmaster',
      entityId: accountId,
      details: { hostId, verificationType: type },
    });
    return v;
  }

  /** The domain's account and its host there, added when missing; then its verification. */
  async function domainHostFor(domainId: string) {
    if (!domains) throw new Error('domains port not wired');
    const d = await domains.get(domainId);
    if (!d.yandexWebmasterAccountId)
      throw new ValidationError(WEBMASTER_MESSAGES.noAccount, {
        yandexWebmasterAccountId: WEBMASTER_MESSAGES.noAccount,
      });
    const c = await credentials(d.yandexWebmasterAccountId);
    const hosts = await client.listHosts(c);
    const host = hosts.find((h) => hostnameOfId(h.host_id) === d.domainName) ?? null;
    return { d, c, accountId: d.yandexWebmasterAccountId, host };
  }

  async function ensureHost(domainId: string) {
    const found = await domainHostFor(domainId);
    if (found.host) return { ...found, hostId: found.host.host_id };
    const { host_id } = await client.addHost(found.c, hostUrlOf(found.d.domainName));
    return { ...found, hostId: host_id };
  }

  // ---------------------------------------------------------------- recrawl backlog (decision 027)
  /** Sends waiting URLs of one host, oldest first, while today's quota lasts. */
  async function drainHost(accountId: string, hostId: string) {
    const waiting = await repo.backlogOf(accountId, hostId);
    if (!waiting.length) return 0;
    const c = await credentials(accountId);
    let { quota_remainder: left } = await client.recrawlQuota(c, hostId);
    let sent = 0;
    for (const item of waiting) {
      if (left <= 0) break;
      try {
        const r = await client.recrawl(c, hostId, item.url);
        left = r.quota_remainder;
        sent++;
        await repo.removeFromBacklog(item.id);
      } catch (err) {
        if (err instanceof YandexApiError && err.errorCode === 'QUOTA_EXCEEDED') break;
        // Already queued, or refused for good: it will never go through, so it does not wait forever.
        if (err instanceof YandexApiError && err.httpStatus < 500 && err.httpStatus !== 429) {
          await repo.removeFromBacklog(item.id);
          continue;
        }
        throw err;
      }
    }
    return sent;
  }

  return {
    ...crud,
    setInUseCheck(check: WebmasterInUseCheck) {
      inUseCheck = check;
    },
    /** Wired by the composition root once the domains, cloud-flare and content-file services exist. */
    wire(ports: { domains?: WebmasterDomainPort; dns?: WebmasterDnsPort; files?: WebmasterFilePort }) {
      domains = ports.domains ?? domains;
      dns = ports.dns ?? dns;
      files = ports.files ?? files;
    },
    async list(q: YandexWebmasterAccountListQuery) {
      const result = await crud.list(q);
      if (!q.checkInUseBrandId) return result;
      const marks = inUseCheck
        ? await inUseCheck(
            result.items.map((a) => a._id),
            q.checkInUseBrandId,
            q.checkInUseBrandIdDomainId,
          )
        : new Set<string>();
      return { ...result, items: result.items.map((a) => ({ ...a, isInUseBrandId: marks.has(a._id) })) };
    },
    reveal: createRevealer<WebmasterAccountRow>({
      database,
      audit,
      secrets,
      entity: 'yandex-webmaster',
      label: 'Yandex Webmaster account',
      load: (id, ex) => repo.findRow(id, ex),
      columns: { apiToken: (r) => r.apiTokenEnc },
    }),

    // ---------------------------------------------------------------- proxied calls
    listHosts: async (id: string) => client.listHosts(await credentials(id)),
    async addHost(id: string, hostUrl: string, actor: Actor) {
      const r = await client.addHost(await credentials(id), hostUrl);
      await audit.record(actor, {
        action: 'add_host',
        entity: 'yandex-webmaster',
        entityId: id,
        details: { hostUrl, hostId: r.host_id },
      });
      return r;
    },
    getHost: async (id: string, hostId: string) => client.getHost(await credentials(id), hostId),
    async deleteHost(id: string, hostId: string, actor: Actor) {
      await client.deleteHost(await credentials(id), hostId);
      await audit.record(actor, {
        action: 'delete_host',
        entity: 'yandex-webmaster',
        entityId: id,
        details: { hostId },
      });
    },
    summary: async (id: string, hostId: string) => client.summary(await credentials(id), hostId),
    importantUrls: async (id: string, hostId: string) => client.importantUrls(await credentials(id), hostId),
    sitemaps: async (id: string, hostId: string) => client.sitemaps(await credentials(id), hostId),
    userSitemaps: async (id: string, hostId: string) => client.userSitemaps(await credentials(id), hostId),
    async addUserSitemap(id: string, hostId: string, url: string, actor: Actor) {
      const r = await client.addUserSitemap(await credentials(id), hostId, url);
      await audit.record(actor, {
        action: 'add_sitemap',
        entity: 'yandex-webmaster',
        entityId: id,
        details: { hostId, url, sitemapId: r.sitemap_id },
      });
      return r;
    },
    async deleteUserSitemap(id: string, hostId: string, sitemapId: string, actor: Actor) {
      await client.deleteUserSitemap(await credentials(id), hostId, sitemapId);
      await audit.record(actor, {
        action: 'delete_sitemap',
        entity: 'yandex-webmaster',
        entityId: id,
        details: { hostId, sitemapId },
      });
    },
    recrawlQuota: async (id: string, hostId: string) => client.recrawlQuota(await credentials(id), hostId),
    async recrawlQueue(id: string, hostId: string): Promise<RecrawlQueue> {
      const tasks = await client.recrawlQueue(await credentials(id), hostId);
      const backlog = await repo.backlogOf(id, hostId);
      return { tasks, backlog: backlog.map((b) => ({ url: b.url, addedAt: b.addedAt.toISOString() })) };
    },
    /**
     * Sends the URL now while today's quota lasts; past it (or behind URLs already waiting, to keep their
     * order) the URL waits in the backlog and goes out on a later day.
     */
    async recrawl(id: string, hostId: string, url: string, actor: Actor): Promise<RecrawlResult> {
      const c = await credentials(id);
      const backlogged = async (): Promise<RecrawlResult> => {
        if ((await repo.backlogSize(id, hostId)) >= BACKLOG_MAX_PER_HOST)
          throw new ConflictError(WEBMASTER_MESSAGES.backlogFull, { url: WEBMASTER_MESSAGES.backlogFull });
        await repo.addToBacklog(id, hostId, url);
        await audit.record(actor, {
          action: 'recrawl_backlog',
          entity: 'yandex-webmaster',
          entityId: id,
          details: { hostId, url },
        });
        return { task_id: null, quota_remainder: 0, backlogged: true };
      };
      if ((await repo.backlogSize(id, hostId)) > 0) return backlogged();
      const quota = await client.recrawlQuota(c, hostId);
      if (quota.quota_remainder <= 0) return backlogged();
      try {
        const r = await client.recrawl(c, hostId, url);
        await audit.record(actor, {
          action: 'recrawl',
          entity: 'yandex-webmaster',
          entityId: id,
          details: { hostId, url, taskId: r.task_id },
        });
        return { task_id: r.task_id, quota_remainder: r.quota_remainder, backlogged: false };
      } catch (err) {
        if (err instanceof YandexApiError && err.errorCode === 'QUOTA_EXCEEDED') return backlogged();
        throw err;
      }
    },
    /** One pass over every host with waiting URLs; returns how many were sent. Errors of one host skip it. */
    async drainRecrawlBacklog(log?: (err: unknown) => void) {
      let sent = 0;
      for (const h of await repo.backlogHosts()) {
        try {
          sent += await drainHost(h.accountId, h.hostId);
        } catch (err) {
          log?.(err);
        }
      }
      return sent;
    },
    verification: async (id: string, hostId: string) => client.verification(await credentials(id), hostId),
    verify,

    // ---------------------------------------------------------------- the domain's host, one-click verification
    async domainHost(domainId: string): Promise<DomainWebmasterHost> {
      const { d, host } = await domainHostFor(domainId);
      return { hostUrl: hostUrlOf(d.domainName), host };
    },
    /** Adds the host if needed, places the TXT record through the domain's Cloudflare zone, starts DNS verification. */
    async verifyThroughDns(domainId: string, actor: Actor): Promise<OneClickVerify> {
      if (!domains || !dns) throw new Error('ports not wired');
      const d = await domains.get(domainId);
      if (!d.cloudId || !d.cloudZoneId) throw new ValidationError(WEBMASTER_MESSAGES.noZone);
      const { c, accountId, hostId } = await ensureHost(domainId);
      const current = await client.verification(c, hostId);
      const content = yandexVerificationMarkers(current.verification_uin ?? '').dnsTxt;
      const placed = `TXT ${d.domainName} "${content}"`;
      if (current.verification_state === 'VERIFIED' || current.verification_state === 'IN_PROGRESS')
        return { method: 'DNS', placed, verification: current, started: false };
      await ensureTxtRecord(dns, domainId, d.domainName, content, actor);
      return { method: 'DNS', placed, verification: await verify(accountId, hostId, 'DNS', actor), started: true };
    },
    /** Adds the host if needed, writes yandex_<uin>.html in the domain's content directory, starts HTML_FILE verification. */
    async verifyThroughFile(domainId: string, actor: Actor): Promise<OneClickVerify> {
      if (!files) throw new ValidationError(WEBMASTER_MESSAGES.noFiles);
      const { c, accountId, hostId } = await ensureHost(domainId);
      const current = await client.verification(c, hostId);
      const markers = yandexVerificationMarkers(current.verification_uin ?? '');
      const name = markers.htmlFileName;
      if (current.verification_state === 'VERIFIED' || current.verification_state === 'IN_PROGRESS')
        return { method: 'HTML_FILE', placed: name, verification: current, started: false };
      await files.writeRootFile(domainId, name, markers.htmlFileContent, actor);
      return {
        method: 'HTML_FILE',
        placed: name,
        verification: await verify(accountId, hostId, 'HTML_FILE', actor),
        started: true,
      };
    },
  };
}
export type YandexWebmasterService = ReturnType<typeof createYandexWebmasterService>;
