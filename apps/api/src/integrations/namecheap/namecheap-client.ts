import { createHash } from 'node:crypto';
import { domainToASCII, domainToUnicode } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseDomain } from 'tldts';
import { fetch as undiciFetch } from 'undici';
import { providerFetch } from '../provider-calls.ts';
import { refuseUnsendable } from '../credentials.ts';
import { RateLimitedError, UpstreamError } from '../../http/errors.ts';
import { createRequestBudget } from '../cloudflare/request-budget.ts';
import type {
  NamecheapCredentials,
  NcContact,
  NcCreateResult,
  NcDnsList,
  NcDomainInfo,
  NcDomainPage,
  NcListedDomain,
} from './types.ts';

const PROVIDER = 'Namecheap';
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** getList's largest page. */
export const NC_MAX_PAGE_SIZE = 100;

/**
 * Clearer texts for the numbers an operator can act on (shared/docs/integrations/namecheap.md §3). Others keep
 * Namecheap's own text.
 */
export const NAMECHEAP_ERROR_TEXT: Record<number, string> = {
  1010101: 'the API user is missing',
  1010102: 'the API key is missing',
  1011102: 'API key is invalid or API access has not been enabled',
  1010105: 'the client IP is missing',
  1011105: 'the client IP is missing',
  1011150: 'the request IP is not on the account’s API whitelist',
  1017150: 'the request IP is disabled or locked',
  1017105: 'the client IP is disabled or locked',
  1017101: 'the API user is disabled or locked',
  1019103: 'the user name is not available',
  1016103: 'the user name is not authorised',
  1017103: 'the user name is disabled or locked',
  2019166: 'Domain not found',
  2016166: 'Domain is not associated with your account',
  2030166: 'Domain is invalid or cannot be edited',
  4011103: 'Domain name or user name not available, or access denied',
  500000: 'Too many requests',
};
/** Numbers that mean "Namecheap answered, and this domain is not (usable) in the account". */
export const NAMECHEAP_DOMAIN_ERRORS = new Set([2019166, 2016166, 3016166, 2030166, 4011103]);
const AUTH_ERRORS = new Set([
  1010101, 1010102, 1011102, 1010105, 1011105, 1050900, 1011150, 1017150, 1017105, 1017101, 1019103, 1016103, 1017103,
]);
const RATE_LIMIT_ERROR = 500000;

export interface NamecheapClientOptions {
  /** The console's public IPv4 address, whitelisted at Namecheap (NAMECHEAP_CLIENT_IP). */
  clientIp: string | undefined;
  /** Per attempt. Default 20 s. */
  timeoutMs?: number;
  /** Calls a minute per account (endpoint + API user). Default 20, the SDK's documented quota. */
  callsPerMinute?: number;
  /** The budget's window: a minute, or shorter on a compressed clock (benchmarks, tests). Default 60 s. */
  budgetWindowMs?: number;
  /**
   * The longest the client waits for a free slot in its own budget before failing with 429. Default 10 s, or a
   * sixth of a shorter window (a wait of the window's scale is the caller's to show, not the client's to hide).
   */
  maxQueueWaitMs?: number;
  /** Retries after Namecheap's rate-limit answer (HTTP 405 or error 500000). Default 3. */
  rateLimitRetries?: number;
  /** First backoff after a rate-limit answer; doubled each time, capped at 16 s. Default 2 s. */
  backoffMs?: number;
  fetchImpl?: typeof undiciFetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

type Params = Record<string, string | number | undefined>;
type Node = Record<string, unknown>;

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const str = (v: unknown): string | null => (v === undefined || v === null || v === '' ? null : String(v));
const bool = (v: unknown) => String(v ?? '').toLowerCase() === 'true';
const int = (v: unknown) => {
  const n = Number.parseInt(String(v ?? ''), 10);
  return Number.isFinite(n) ? n : null;
};
/** Namecheap's MM/DD/YYYY → YYYY-MM-DD (null when it is not a date). */
export const isoFromUs = (v: unknown): string | null => {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(String(v ?? '').trim());
  if (!m) return null;
  return `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
};
const text = (v: unknown): string =>
  v && typeof v === 'object' ? String((v as Node)['#text'] ?? '') : String(v ?? '');

/** The ASCII (punycode) form Namecheap wants; throws a 400-able error for a name that has none. */
export const asciiName = (name: string): string => {
  const a = domainToASCII(name.trim().replace(/\.$/, '').toLowerCase());
  if (!a || !a.includes('.')) throw new UpstreamError(PROVIDER, `Namecheap: "${name}" is not a valid domain name`);
  return a;
};
export const unicodeName = (ascii: string) => domainToUnicode(ascii) || ascii;

/**
 * SLD and TLD on the public suffix: example.co.uk → example + co.uk (setCustom and getList take them apart).
 * Private suffixes count too (aa.us.com → aa + us.com): Namecheap sells names under them, and its SDK splits on a
 * suffix list that includes them.
 */
export function splitDomain(name: string): { sld: string; tld: string } {
  const ascii = asciiName(name);
  const p = parseDomain(ascii, { allowPrivateDomains: true });
  if (!p.publicSuffix || !p.domainWithoutSuffix || p.subdomain) {
    throw new UpstreamError(PROVIDER, `Namecheap: "${name}" is not a registrable domain name`);
  }
  return { sld: p.domainWithoutSuffix, tld: p.publicSuffix };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  isArray: (name) =>
    [
      'Error',
      'Warning',
      'Domain',
      'Nameserver',
      'DomainCheckResult',
      'ProductType',
      'ProductCategory',
      'Product',
      'Price',
    ].includes(name),
});

export type NamecheapClient = ReturnType<typeof createNamecheapClient>;

export function createNamecheapClient(opts: NamecheapClientOptions) {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const fetchImpl = providerFetch('namecheap', opts.fetchImpl ?? undiciFetch);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const windowMs = opts.budgetWindowMs ?? 60_000;
  const maxQueueWaitMs = opts.maxQueueWaitMs ?? Math.min(10_000, windowMs / 6);
  const rateLimitRetries = opts.rateLimitRetries ?? 3;
  const backoffMs = opts.backoffMs ?? 2_000;
  const perMinute = opts.callsPerMinute ?? 20;
  // Counted here when sent, counted by Namecheap when received: a margin past the window keeps the call that
  // frees a slot from arriving while Namecheap still counts the one it replaces (error 500000).
  const marginMs = Math.min(1000, Math.ceil(windowMs / 60));
  const budget = createRequestBudget({ requests: perMinute, windowMs, now, marginMs });
  const per = windowMs === 60_000 ? 'a minute' : `per ${windowMs / 1000} s`;

  const accountKey = (c: NamecheapCredentials) =>
    createHash('sha256').update(`${c.endpointUrl}\0${c.apiUser.toLowerCase()}`).digest('hex').slice(0, 32);

  const scrub = (message: string, c: NamecheapCredentials) =>
    c.apiKey && c.apiKey.length >= 4 ? message.split(c.apiKey).join('[redacted]') : message;
  const fail = (c: NamecheapCredentials, message: string, o: ConstructorParameters<typeof UpstreamError>[2] = {}) =>
    new UpstreamError(PROVIDER, scrub(message, c), o);

  /** Waits for a slot in the account's budget (bounded); past the bound the caller gets a 429 with the wait. */
  const takeSlot = async (c: NamecheapCredentials) => {
    const key = accountKey(c);
    let waited = 0;
    for (;;) {
      const r = await budget.take(key);
      if (r.ok) return;
      if (waited + r.retryAfterMs > maxQueueWaitMs) {
        throw new RateLimitedError(
          `Namecheap: the ${perMinute} calls ${per} allowed for this account are used up; try again in ${Math.ceil(r.retryAfterMs / 1000)} s`,
          r.retryAfterMs / 1000,
          'upstream_rate_limited',
        );
      }
      waited += r.retryAfterMs;
      await sleep(r.retryAfterMs);
    }
  };

  /** One exchange: the raw status and text, or a clear error naming Namecheap. */
  const exchange = async (c: NamecheapCredentials, body: URLSearchParams) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetchImpl(c.endpointUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/xml' },
        body: body.toString(),
        signal,
      });
      const length = Number(res.headers.get('content-length') ?? 0);
      if (length > MAX_RESPONSE_BYTES) {
        await res.body?.cancel().catch(() => undefined);
        throw fail(c, `Namecheap: the answer is too large (${length} bytes)`);
      }
      const t = await res.text();
      if (t.length > MAX_RESPONSE_BYTES) throw fail(c, 'Namecheap: the answer is too large');
      return { status: res.status, text: t };
    } catch (err) {
      if (err instanceof UpstreamError) throw err;
      if (signal.aborted) throw fail(c, `Namecheap: timed out after ${timeoutMs} ms`, { timeout: true });
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (err as Error).message;
      throw fail(c, `Namecheap: could not connect (${detail})`, { code: 'upstream_unreachable' });
    }
  };

  const parseEnvelope = (c: NamecheapCredentials, status: number, body: string) => {
    let doc: Node | undefined;
    try {
      doc = parser.parse(body) as Node;
    } catch {
      doc = undefined;
    }
    const env = doc?.ApiResponse as Node | undefined;
    if (!env || typeof env !== 'object') {
      throw fail(
        c,
        status >= 200 && status < 300
          ? `Namecheap: the answer was not Namecheap XML (HTTP ${status})`
          : `Namecheap: HTTP ${status} from the API`,
        { upstreamStatus: status },
      );
    }
    const errors = asArray((env.Errors as Node | undefined)?.Error as Node[] | Node | undefined).map((e) => ({
      number: int((e as Node)['@Number']) ?? 0,
      message: text(e).trim(),
    }));
    return { ok: String(env['@Status']).toUpperCase() === 'OK', errors, response: (env.CommandResponse ?? {}) as Node };
  };

  const errorFor = (c: NamecheapCredentials, errors: { number: number; message: string }[]) => {
    const first = errors[0] ?? { number: 0, message: 'unknown error' };
    const describe = (e: { number: number; message: string }) => {
      let t = NAMECHEAP_ERROR_TEXT[e.number] ?? (e.message || 'unknown error');
      if (e.number === 1011150 && opts.clientIp) t += ` (NAMECHEAP_CLIENT_IP is ${opts.clientIp})`;
      return `Namecheap ${e.number}: ${t}`;
    };
    const message = errors.length ? errors.map(describe).join('; ') : 'Namecheap: the call failed without an error';
    return fail(c, message, {
      upstreamCode: first.number,
      code: AUTH_ERRORS.has(first.number) ? 'upstream_auth_failed' : 'upstream_error',
    });
  };

  /**
   * Runs one command. Namecheap's rate-limit answers (HTTP 405 before the command runs; error 500000) are
   * retried after a doubling backoff, a bounded number of times. 405 is safe to resend for any command; 500000
   * is resent only for reads, because a create must never be sent twice.
   */
  const call = async (c: NamecheapCredentials, command: string, params: Params, o: { write?: boolean } = {}) => {
    if (!opts.clientIp) {
      throw fail(c, 'Namecheap: NAMECHEAP_CLIENT_IP is not set; Namecheap accepts calls only from a whitelisted IP', {
        code: 'upstream_auth_missing',
      });
    }
    if (!c.apiKey) throw fail(c, 'Namecheap: the registrator has no API key', { code: 'upstream_auth_missing' });
    refuseUnsendable(PROVIDER, 'API username', c.apiUser, 'user');
    refuseUnsendable(PROVIDER, 'API key', c.apiKey, 'token');
    const body = new URLSearchParams({
      ApiUser: c.apiUser,
      ApiKey: c.apiKey,
      UserName: c.apiUser,
      ClientIp: opts.clientIp,
      Command: command,
    });
    for (const [k, v] of Object.entries(params)) if (v !== undefined) body.set(k, String(v));
    for (let attempt = 0; ; attempt++) {
      await takeSlot(c);
      const res = await exchange(c, body);
      let limited = res.status === 405;
      let env: ReturnType<typeof parseEnvelope> | undefined;
      if (!limited) {
        env = parseEnvelope(c, res.status, res.text);
        limited = !env.ok && env.errors.some((e) => e.number === RATE_LIMIT_ERROR) && !o.write;
      }
      if (limited) {
        if (attempt >= rateLimitRetries) {
          throw fail(
            c,
            `Namecheap: rate limited (HTTP ${res.status === 405 ? 405 : '200, error 500000'}) after ${attempt + 1} attempts`,
            {
              code: 'upstream_rate_limited',
              upstreamStatus: res.status,
            },
          );
        }
        await sleep(Math.min(16_000, backoffMs * 2 ** attempt));
        continue;
      }
      if (!env!.ok) throw errorFor(c, env!.errors);
      return env!.response;
    }
  };

  const toListed = (d: Node): NcListedDomain => ({
    domainName: String(d['@Name'] ?? '').toLowerCase(),
    created: isoFromUs(d['@Created']),
    expirationDate: isoFromUs(d['@Expires']),
    isExpired: bool(d['@IsExpired']),
    isLocked: bool(d['@IsLocked']),
    autoRenew: bool(d['@AutoRenew']),
    isOurDns: bool(d['@IsOurDNS']),
  });

  const client = {
    async getInfo(c: NamecheapCredentials, domainName: string): Promise<NcDomainInfo> {
      const r = await call(c, 'namecheap.domains.getInfo', { DomainName: asciiName(domainName) });
      const info = (r.DomainGetInfoResult ?? {}) as Node;
      const details = (info.DomainDetails ?? {}) as Node;
      const dns = (info.DnsDetails ?? {}) as Node;
      return {
        domainName: String(info['@DomainName'] ?? asciiName(domainName)).toLowerCase(),
        status: str(info['@Status']),
        expirationDate: isoFromUs(text(details.ExpiredDate)),
        nameServers: asArray(dns.Nameserver as unknown[]).map((n) => text(n).trim().toLowerCase()),
        isUsingOurDns: bool(dns['@IsUsingOurDNS']),
      };
    },

    /** One page; pageSize 10–100 (Namecheap's bounds). SearchTerm goes in ASCII so IDN searches match. */
    async getListPage(
      c: NamecheapCredentials,
      q: { page?: number; pageSize?: number; search?: string; listType?: 'ALL' | 'EXPIRING' | 'EXPIRED' } = {},
    ): Promise<NcDomainPage> {
      const pageSize = Math.min(NC_MAX_PAGE_SIZE, Math.max(10, q.pageSize ?? 20));
      const term = q.search?.trim()
        ? (domainToASCII(q.search.trim().toLowerCase()) || q.search.trim()).slice(0, 70)
        : undefined;
      const r = await call(c, 'namecheap.domains.getList', {
        ListType: q.listType ?? 'ALL',
        SearchTerm: term,
        Page: Math.max(1, q.page ?? 1),
        PageSize: pageSize,
        SortBy: 'NAME',
      });
      const result = (r.DomainGetListResult ?? {}) as Node;
      const paging = (r.Paging ?? {}) as Node;
      return {
        items: asArray(result.Domain as Node[]).map(toListed),
        totalItems: int(text(paging.TotalItems)) ?? 0,
        page: int(text(paging.CurrentPage)) ?? q.page ?? 1,
        pageSize: int(text(paging.PageSize)) ?? pageSize,
      };
    },

    /**
     * Every domain of the account, page after page of 100 until TotalItems is reached (tools that stop at
     * the first 100 are a known failure). Bounded at maxPages so a misbehaving server cannot loop us forever.
     */
    async getAll(c: NamecheapCredentials, q: { search?: string; maxPages?: number } = {}): Promise<NcListedDomain[]> {
      const maxPages = q.maxPages ?? 200;
      const out: NcListedDomain[] = [];
      for (let page = 1; page <= maxPages; page++) {
        const p = await client.getListPage(c, { page, pageSize: NC_MAX_PAGE_SIZE, search: q.search });
        out.push(...p.items);
        if (!p.items.length || page * p.pageSize >= p.totalItems) return out;
      }
      throw fail(c, `Namecheap: the domain list is longer than ${maxPages} pages`);
    },

    /** Never retried on its own: a resend could register (and charge) twice. */
    async create(
      c: NamecheapCredentials,
      input: { domainName: string; years: number; contact: NcContact; nameServers?: string[] },
    ): Promise<NcCreateResult> {
      const params: Params = {
        DomainName: asciiName(input.domainName),
        Years: input.years,
        Nameservers: input.nameServers?.length ? input.nameServers.join(',') : undefined,
        AddFreeWhoisguard: 'yes',
        WGEnabled: 'yes',
        GenerateAdminOrderRefId: 'False',
      };
      const k = input.contact;
      for (const role of ['Registrant', 'Tech', 'Admin', 'AuxBilling']) {
        Object.assign(params, {
          [`${role}FirstName`]: k.firstName,
          [`${role}LastName`]: k.lastName,
          [`${role}Address1`]: k.address1,
          [`${role}City`]: k.city,
          [`${role}StateProvince`]: k.stateProvince,
          [`${role}PostalCode`]: k.postalCode,
          [`${role}Country`]: k.country,
          [`${role}Phone`]: k.phone,
          [`${role}EmailAddress`]: k.email,
          [`${role}OrganizationName`]: k.organizationName ?? undefined,
        });
      }
      const r = await call(c, 'namecheap.domains.create', params, { write: true });
      const d = (r.DomainCreateResult ?? {}) as Node;
      return {
        domainName: String(d['@Domain'] ?? params.DomainName).toLowerCase(),
        registered: bool(d['@Registered']),
        chargedAmount: String(d['@ChargedAmount'] ?? '0'),
        domainId: int(d['@DomainID']),
        orderId: int(d['@OrderID']),
        transactionId: int(d['@TransactionID']),
        nonRealTime: bool(d['@NonRealTimeDomain']),
      };
    },

    async setCustomNameServers(c: NamecheapCredentials, domainName: string, nameServers: string[]) {
      const { sld, tld } = splitDomain(domainName);
      const r = await call(
        c,
        'namecheap.domains.dns.setCustom',
        { SLD: sld, TLD: tld, Nameservers: nameServers.map((n) => n.trim().toLowerCase()).join(',') },
        { write: true },
      );
      const d = (r.DomainDNSSetCustomResult ?? {}) as Node;
      return { domainName: String(d['@Domain'] ?? `${sld}.${tld}`).toLowerCase(), updated: bool(d['@Updated']) };
    },

    async getDnsList(c: NamecheapCredentials, domainName: string): Promise<NcDnsList> {
      const { sld, tld } = splitDomain(domainName);
      const r = await call(c, 'namecheap.domains.dns.getList', { SLD: sld, TLD: tld });
      const d = (r.DomainDNSGetListResult ?? {}) as Node;
      return {
        domainName: String(d['@Domain'] ?? `${sld}.${tld}`).toLowerCase(),
        isUsingOurDns: bool(d['@IsUsingOurDNS']),
        nameServers: asArray(d.Nameserver as unknown[]).map((n) => text(n).trim().toLowerCase()),
      };
    },

    async check(c: NamecheapCredentials, names: string[]) {
      if (names.length > 50) throw fail(c, 'Namecheap: at most 50 names can be checked at once');
      const r = await call(c, 'namecheap.domains.check', { DomainList: names.map(asciiName).join(',') });
      return asArray(r.DomainCheckResult as Node[]).map((d) => ({
        domainName: String(d['@Domain'] ?? '').toLowerCase(),
        available: bool(d['@Available']),
        errorNo: int(d['@ErrorNo']) ?? 0,
        description: str(d['@Description']),
      }));
    },

    /**
     * users.getPricing (namecheap.md §9): the account's prices of one product, e.g. ProductType=DOMAIN,
     * ActionName=REGISTER, ProductName=com. Each Price row is one duration; its price is per year (Namecheap's
     * example rows fall as the duration grows), plus any AdditionalCost (the ICANN fee) per year. Namecheap asks
     * callers to cache the answer; the registrar service does.
     */
    async getPricing(
      c: NamecheapCredentials,
      q: { productType: 'DOMAIN'; actionName: 'REGISTER' | 'RENEW' | 'TRANSFER' | 'REACTIVATE'; productName: string },
    ): Promise<NcPrice[]> {
      const r = await call(c, 'namecheap.users.getPricing', {
        ProductType: q.productType,
        ActionName: q.actionName,
        ProductName: q.productName,
      });
      const out: NcPrice[] = [];
      const result = (r.UserGetPricingResult ?? {}) as Node;
      // Names are matched case-insensitively: the answers seen write them as "DOMAIN"/"REGISTER" or "domains"/"register".
      for (const type of asArray(result.ProductType as Node[]))
        for (const cat of asArray(type.ProductCategory as Node[]))
          for (const product of asArray(cat.Product as Node[]))
            for (const p of asArray(product.Price as Node[])) {
              const num = (v: unknown) => {
                const n = Number.parseFloat(String(v ?? ''));
                return Number.isFinite(n) ? n : null;
              };
              out.push({
                productType: String(type['@Name'] ?? '').toUpperCase(),
                category: String(cat['@Name'] ?? '').toUpperCase(),
                product: String(product['@Name'] ?? '').toLowerCase(),
                duration: int(p['@Duration']) ?? 0,
                durationType: String(p['@DurationType'] ?? '').toUpperCase(),
                price: num(p['@YourPrice']) ?? num(p['@Price']),
                additionalCost: num(p['@YourAdditonalCost']) ?? num(p['@AdditionalCost']) ?? 0,
                currency: str(p['@Currency']),
              });
            }
      return out;
    },
  };
  return client;
}

/** One Price row of users.getPricing. */
export type NcPrice = {
  productType: string;
  category: string;
  product: string;
  duration: number;
  durationType: string;
  /** Per year, the account's own price (YourPrice, else Price); null when the row has none. */
  price: number | null;
  additionalCost: number;
  currency: string | null;
};
