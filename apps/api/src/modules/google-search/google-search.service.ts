import {
  GOOGLE_ANALYTICS_DAYS,
  GOOGLE_ANALYTICS_TOP,
  googleSiteUrl,
  parseServiceAccountKey,
  toAsciiDomain,
  type AddGooglePropertyInput,
  type GoogleAnalytics,
  type GoogleAnalyticsRow,
  type GoogleDomainState,
  type GoogleInspection,
  type GooglePropertyKind,
  type GoogleSearchAccount,
  type GoogleSearchAccountInput,
  type GoogleSearchAccountListQuery,
  type GoogleServiceAccountKey,
  type GoogleSitemap,
  type GoogleVerifyResult,
} from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.ts';
import {
  GoogleApiError,
  GoogleTokenError,
  readPrivateKey,
  type GoogleSearchClient,
} from '../../integrations/google-search/index.ts';
import { assertCredentialDestinations } from '../../lib/credential-destinations.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import { ensureTxtRecord, type VerificationDnsPort, type VerificationFilePort } from '../../lib/verification-txt.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { GoogleAccountWrite, GoogleSearchRepository } from './google-search.repository.ts';

/** What the Google tab needs of a domain (the domains service answers it). */
export interface GoogleDomainPort {
  get(domainId: string): Promise<{
    _id: string;
    domainName: string;
    cloudZoneId: string | null;
    serverId: string | null;
  }>;
}
export const GOOGLE_MESSAGES = {
  notFound: 'Google account not found',
  keyRequired: 'The service account key is required',
  noProperty: 'The domain has no Google Search Console property: add one first',
  hasProperty: (siteUrl: string) =>
    `The domain already has the property ${siteUrl}: remove it first to use another account or kind`,
  noZone: 'Verifying a domain property puts a TXT record in its Cloudflare zone: create or link the zone first',
  noServer: 'Verifying a URL-prefix property writes a file to its site: pick the domain’s server first',
  noFiles: 'Verification through a file needs the content-file layer, which is not available',
  notOfProperty: (url: string, siteUrl: string) => `${url} is not within the property ${siteUrl}`,
  busy: 'The domain’s property is being changed by someone else: try again in a moment',
} as const;

const VERIFIED_LEVELS = new Set(['siteOwner', 'siteFullUser', 'siteRestrictedUser']);
const kindOf = (siteUrl: string): GooglePropertyKind => (siteUrl.startsWith('sc-domain:') ? 'domain' : 'url');

/** Whether a page URL lies within a property (a domain property holds its subdomains, a URL prefix its paths). */
export function isWithinProperty(url: string, siteUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (siteUrl.startsWith('sc-domain:')) {
    const host = siteUrl.slice('sc-domain:'.length);
    return u.hostname === host || u.hostname.endsWith(`.${host}`);
  }
  return u.href.startsWith(siteUrl);
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function createGoogleSearchService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: GoogleSearchRepository;
  client: GoogleSearchClient;
  now?: () => number;
}) {
  const { database, audit, usage, secrets, repo, client } = deps;
  const now = deps.now ?? Date.now;
  let domains: GoogleDomainPort | undefined;
  let dns: VerificationDnsPort | undefined;
  let files: VerificationFilePort | undefined;

  usage.register('google-search', async (id, ex) => repo.usageOf(id, ex));

  /** The key file's text → the key, or a field error on serviceAccountKey. */
  function parseKey(text: string): GoogleServiceAccountKey {
    const parsed = parseServiceAccountKey(text);
    const fail = (message: string) => new ValidationError(message, { serviceAccountKey: message });
    if ('error' in parsed) throw fail(parsed.error);
    try {
      readPrivateKey(parsed.key.private_key);
    } catch (err) {
      throw fail((err as Error).message);
    }
    return parsed.key;
  }

  /** Asks Google for a token with the key: a refusal is the form's field error. */
  async function proveKey(key: GoogleServiceAccountKey) {
    try {
      await client.checkKey(key);
    } catch (err) {
      if (err instanceof GoogleTokenError)
        throw new ValidationError(err.message, { serviceAccountKey: err.message }, 'google_key_refused');
      throw err;
    }
  }

  const toWrite = (input: Partial<GoogleSearchAccountInput>): GoogleAccountWrite => {
    const w: GoogleAccountWrite = {};
    if (input.name !== undefined) w.name = input.name;
    if (input.serviceAccountKey !== undefined) {
      const key = parseKey(input.serviceAccountKey);
      // Only what the client uses is kept, sealed whole; the parts shown are kept in clear.
      w.serviceAccountKeyEnc = secrets.encrypt(JSON.stringify(key));
      w.clientEmail = key.client_email;
      w.projectId = key.project_id ?? null;
      w.tokenUri = key.token_uri;
    }
    return w;
  };

  const crud = createCrudService<
    GoogleSearchAccount,
    GoogleSearchAccountInput,
    GoogleSearchAccountListQuery,
    GoogleAccountWrite
  >({
    database,
    audit,
    usage,
    repo,
    entity: 'google-search',
    label: 'Google account',
    toWrite,
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      return (
        r && {
          name: r.name,
          clientEmail: r.clientEmail,
          projectId: r.projectId,
          tokenUri: r.tokenUri,
          serviceAccountKey: r.serviceAccountKeyEnc,
        }
      );
    },
  });

  /** The account's key for the client; it never leaves the server. */
  async function keyOf(accountId: string): Promise<GoogleServiceAccountKey> {
    const r = await repo.findRow(accountId);
    if (!r) throw new NotFoundError(GOOGLE_MESSAGES.notFound);
    return JSON.parse(secrets.decrypt(r.serviceAccountKeyEnc)) as GoogleServiceAccountKey;
  }

  async function domainOf(domainId: string) {
    if (!domains) throw new Error('domains port not wired');
    const d = await domains.get(domainId);
    return { ...d, ascii: toAsciiDomain(d.domainName) ?? d.domainName };
  }

  /** The domain's property and its account's key; a clear 400 when it has none. */
  async function propertyFor(domainId: string) {
    const p = await repo.propertyOf(domainId);
    if (!p) throw new ValidationError(GOOGLE_MESSAGES.noProperty);
    return { ...p, key: await keyOf(p.accountId) };
  }

  /** Google's permission level of the key on the property, or null when Google does not list it. */
  async function permissionOf(key: GoogleServiceAccountKey, siteUrl: string): Promise<string | null> {
    try {
      return (await client.getSite(key, siteUrl)).permissionLevel ?? null;
    } catch (err) {
      if (err instanceof GoogleApiError && (err.httpStatus === 403 || err.httpStatus === 404)) return null;
      throw err;
    }
  }

  async function state(domainId: string): Promise<GoogleDomainState> {
    const d = await domainOf(domainId);
    const p = await repo.propertyOf(domainId);
    const base = { domainName: d.ascii, hasZone: Boolean(d.cloudZoneId), hasServer: Boolean(d.serverId) };
    if (!p) return { ...base, property: null };
    const permissionLevel = await permissionOf(await keyOf(p.accountId), p.siteUrl);
    return {
      ...base,
      property: {
        accountId: p.accountId,
        accountName: p.accountName,
        clientEmail: p.clientEmail,
        siteUrl: p.siteUrl,
        kind: kindOf(p.siteUrl),
        permissionLevel,
        verified: permissionLevel !== null && VERIFIED_LEVELS.has(permissionLevel),
      },
    };
  }

  function assertWithin(url: string, siteUrl: string) {
    if (!isWithinProperty(url, siteUrl)) {
      const message = GOOGLE_MESSAGES.notOfProperty(url, siteUrl);
      throw new ValidationError(message, { url: message });
    }
  }

  /** One Search Analytics query turned into rows of one key (the date, the query or the page). */
  async function analyticsBy(key: GoogleServiceAccountKey, siteUrl: string, dim: string, range: object, limit: number) {
    const rows = await client.searchAnalytics(key, siteUrl, {
      ...(range as { startDate: string; endDate: string }),
      dimensions: [dim],
      rowLimit: limit,
    });
    return rows.map((r): GoogleAnalyticsRow => ({
      key: String(r.keys?.[0] ?? ''),
      clicks: Number(r.clicks) || 0,
      impressions: Number(r.impressions) || 0,
      ctr: Number(r.ctr) || 0,
      position: Number(r.position) || 0,
    }));
  }

  /** A sitemap submitted or removed, audited; answers the sitemaps as Google lists them after. */
  async function changeSitemap(
    domainId: string,
    url: string,
    actor: Actor,
    action: string,
    change: (p: Awaited<ReturnType<typeof propertyFor>>) => Promise<void>,
  ) {
    const p = await propertyFor(domainId);
    await change(p);
    await audit.record(actor, { action, entity: 'domains', entityId: domainId, details: { siteUrl: p.siteUrl, url } });
    return client.listSitemaps(p.key, p.siteUrl);
  }

  return {
    ...crud,
    /** Wired by the composition root once the domains, cloud-flare and content-file services exist. */
    wire(ports: { domains?: GoogleDomainPort; dns?: VerificationDnsPort; files?: VerificationFilePort }) {
      domains = ports.domains ?? domains;
      dns = ports.dns ?? dns;
      files = ports.files ?? files;
    },
    /** A new account: the key's shape, then a token request; either failing is the key field's error. */
    async create(input: GoogleSearchAccountInput, actor: Actor) {
      if (input.serviceAccountKey === undefined)
        throw new ValidationError(GOOGLE_MESSAGES.keyRequired, { serviceAccountKey: GOOGLE_MESSAGES.keyRequired });
      await proveKey(parseKey(input.serviceAccountKey));
      return crud.create(input, actor);
    },
    async update(id: string, input: Partial<GoogleSearchAccountInput>, actor: Actor) {
      const current = await repo.findRow(id);
      if (!current) throw new NotFoundError(GOOGLE_MESSAGES.notFound);
      if (input.serviceAccountKey !== undefined) {
        const key = parseKey(input.serviceAccountKey);
        // Where the key's assertions go is in the key itself: a new token_uri comes only with a new key, and a
        // personal API token may not change it (decision 058).
        assertCredentialDestinations(actor, [
          {
            field: 'serviceAccountKey.token_uri',
            label: 'token endpoint',
            credentialField: 'serviceAccountKey',
            credentialLabel: 'service account key',
            next: key.token_uri,
            current: current.tokenUri,
            credentialGiven: true,
            credentialStored: true,
          },
        ]);
        await proveKey(key);
      }
      return crud.update(id, input, actor);
    },

    /** Every property the account's service account has in Search Console, as Google lists them. */
    sites: async (accountId: string) => client.listSites(await keyOf(accountId)),

    // ---------------------------------------------------------------- a domain's property
    state,
    /** Adds the domain's property in Search Console with the account, and keeps which one it is. */
    async addProperty(domainId: string, input: AddGooglePropertyInput, actor: Actor): Promise<GoogleDomainState> {
      const d = await domainOf(domainId);
      if (!(await repo.findRow(input.accountId)))
        throw new ValidationError(GOOGLE_MESSAGES.notFound, { accountId: GOOGLE_MESSAGES.notFound });
      const siteUrl = googleSiteUrl(input.kind, d.ascii);
      // The row is claimed before Google is asked, so of two adds at once (in any process) only one reaches Google.
      let claimed = await repo.claimProperty(domainId, input.accountId, siteUrl);
      if (!claimed) {
        const had = await repo.propertyOf(domainId);
        if (had && (had.accountId !== input.accountId || had.siteUrl !== siteUrl))
          throw new ConflictError(GOOGLE_MESSAGES.hasProperty(had.siteUrl));
        // Removed in between: claim it again (a second miss is another add's win, answered as above next time).
        if (!had && !(claimed = await repo.claimProperty(domainId, input.accountId, siteUrl)))
          throw new ConflictError(GOOGLE_MESSAGES.busy);
      }
      try {
        await client.addSite(await keyOf(input.accountId), siteUrl);
      } catch (err) {
        if (claimed) await repo.removeProperty(domainId);
        throw err;
      }
      await audit.record(actor, {
        action: 'google_add_property',
        entity: 'domains',
        entityId: domainId,
        details: { accountId: input.accountId, siteUrl },
      });
      return state(domainId);
    },
    /** The property again in Search Console (idempotent): for a launch stage or a fix. */
    async ensureProperty(domainId: string) {
      const p = await propertyFor(domainId);
      await client.addSite(p.key, p.siteUrl);
      return p.siteUrl;
    },
    /** Removes the property from the account's Search Console and forgets it; one Google no longer lists is forgotten too. */
    async removeProperty(domainId: string, actor: Actor): Promise<GoogleDomainState> {
      const p = await propertyFor(domainId);
      try {
        await client.deleteSite(p.key, p.siteUrl);
      } catch (err) {
        if (!(err instanceof GoogleApiError && (err.httpStatus === 403 || err.httpStatus === 404))) throw err;
      }
      await repo.removeProperty(domainId);
      await audit.record(actor, {
        action: 'google_remove_property',
        entity: 'domains',
        entityId: domainId,
        details: { accountId: p.accountId, siteUrl: p.siteUrl },
      });
      return state(domainId);
    },
    /**
     * One-click verification through the Site Verification API: a domain property's token goes into a TXT record
     * of its Cloudflare zone, a URL-prefix property's file into its site's root over SFTP; then the verification,
     * and the property added again so Search Console lists the account as its owner.
     */
    async verify(domainId: string, actor: Actor): Promise<GoogleVerifyResult> {
      const d = await domainOf(domainId);
      const p = await propertyFor(domainId);
      const kind = kindOf(p.siteUrl);
      let placed: string;
      let result: { owners: string[] };
      if (kind === 'domain') {
        if (!d.cloudZoneId || !dns) throw new ValidationError(GOOGLE_MESSAGES.noZone);
        const site = { type: 'INET_DOMAIN' as const, identifier: d.ascii };
        const token = await client.verificationToken(p.key, site, 'DNS_TXT');
        await ensureTxtRecord(dns, domainId, d.domainName, token, actor);
        placed = `TXT ${d.ascii} "${token}"`;
        result = await client.verifySite(p.key, site, 'DNS_TXT');
      } else {
        if (!files) throw new ValidationError(GOOGLE_MESSAGES.noFiles);
        if (!d.serverId) throw new ValidationError(GOOGLE_MESSAGES.noServer);
        const site = { type: 'SITE' as const, identifier: p.siteUrl };
        const token = await client.verificationToken(p.key, site, 'FILE');
        if (!/^google[\w-]{1,100}\.html$/.test(token))
          throw new ValidationError(
            `Google gave a verification file name the console will not write: ${token.slice(0, 120)}`,
          );
        await files.writeRootFile(domainId, token, `google-site-verification: ${token}`, actor);
        placed = token;
        result = await client.verifySite(p.key, site, 'FILE');
      }
      await client.addSite(p.key, p.siteUrl);
      const permissionLevel = await permissionOf(p.key, p.siteUrl);
      await audit.record(actor, {
        action: 'google_verify_property',
        entity: 'domains',
        entityId: domainId,
        details: { siteUrl: p.siteUrl, method: kind === 'domain' ? 'DNS_TXT' : 'FILE', placed },
      });
      return {
        method: kind === 'domain' ? 'DNS_TXT' : 'FILE',
        placed,
        siteUrl: p.siteUrl,
        owners: result.owners,
        permissionLevel,
      };
    },

    // ---------------------------------------------------------------- sitemaps, inspection, analytics
    async sitemaps(domainId: string): Promise<GoogleSitemap[]> {
      const p = await propertyFor(domainId);
      return client.listSitemaps(p.key, p.siteUrl);
    },
    async submitSitemap(domainId: string, url: string, actor: Actor): Promise<GoogleSitemap[]> {
      return changeSitemap(domainId, url, actor, 'google_submit_sitemap', (p) => {
        assertWithin(url, p.siteUrl);
        return client.submitSitemap(p.key, p.siteUrl, url);
      });
    },
    async deleteSitemap(domainId: string, url: string, actor: Actor): Promise<GoogleSitemap[]> {
      return changeSitemap(domainId, url, actor, 'google_delete_sitemap', (p) =>
        client.deleteSitemap(p.key, p.siteUrl, url),
      );
    },
    async inspect(domainId: string, url: string): Promise<GoogleInspection> {
      const p = await propertyFor(domainId);
      assertWithin(url, p.siteUrl);
      return client.inspect(p.key, p.siteUrl, url);
    },
    /** The last 28 days (UTC, to today): clicks, impressions, CTR and position a day, and the top queries and pages. */
    async analytics(domainId: string): Promise<GoogleAnalytics> {
      const p = await propertyFor(domainId);
      const range = { startDate: dayOf(now() - (GOOGLE_ANALYTICS_DAYS - 1) * 86_400_000), endDate: dayOf(now()) };
      // One after another: each counts against the site's per-minute quota, and a refusal stops the rest.
      const days = await analyticsBy(p.key, p.siteUrl, 'date', range, GOOGLE_ANALYTICS_DAYS);
      const queries = await analyticsBy(p.key, p.siteUrl, 'query', range, GOOGLE_ANALYTICS_TOP);
      const pages = await analyticsBy(p.key, p.siteUrl, 'page', range, GOOGLE_ANALYTICS_TOP);
      return { ...range, days, queries, pages };
    },
  };
}
export type GoogleSearchService = ReturnType<typeof createGoogleSearchService>;
