import { domainToASCII } from 'node:url';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from '../http-body.ts';
import { listenOnLoopback, readStateFile, writeStateFile } from '../http-server.ts';

/**
 * A wire-level Namecheap API simulator (shared/docs/integrations/namecheap.md): one endpoint, /xml.response,
 * GET query or POST form, the ApiResponse XML envelope with its error numbers, getList paging, and Namecheap's
 * rate limit answered as the one captured real answer does (HTTP 200 with error 500000), or as the SDK documents it
 * (an empty HTTP 405 before the command runs) when asked.
 *
 * Error numbers the reference could not confirm (create's "not available", "insufficient funds", a bad phone,
 * a missing parameter, an unknown command) are the simulator's own plausible choices; see SIM_ERRORS.
 */

export const DEFAULT_NAME_SERVERS = ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'];

/** Numbers from the reference ([C]) and the simulator's own choices for the unconfirmed ones ([U]). */
export const SIM_ERRORS = {
  apiUserMissing: [1010101, 'Parameter APIUser is missing'],
  apiKeyMissing: [1010102, 'Parameter APIKey is missing'],
  commandMissing: [1010104, 'Parameter Command is missing'],
  clientIpMissing: [1010105, 'Parameter ClientIp is missing'],
  apiKeyInvalid: [1011102, 'API Key is invalid or API access has not been enabled'],
  ipInvalid: [1011150, 'Invalid request IP'],
  userNameUnavailable: [1019103, 'UserName not available'],
  domainNotFound: [2019166, 'Domain not found'],
  notAssociated: [2016166, 'Domain is not associated with your account'],
  domainInvalid: [2030166, 'Edit permission for domain is not supported'],
  tooManyDomains: [2011169, 'Only 50 domains are allowed in a single check command'],
  promotionCodeInvalid: [2011170, 'Promotion code is not available'],
  rateLimited: [500000, 'Too many requests'],
  // [U] below: plausible numbers, not confirmed by Namecheap's pages.
  unknownCommand: [1011104, 'Invalid Command'],
  paramMissing: [2010324, 'Parameter is missing'],
  paramInvalid: [2011280, 'Parameter is invalid'],
  notAvailable: [3019166, 'Domain is not available for registration'],
  tldUnsupported: [2030280, 'TLD is not supported'],
  insufficientFunds: [2528166, 'Insufficient funds in the account balance'],
  productTypeInvalid: [2011298, 'ProductType is invalid'],
  phoneInvalid: [2015182, 'Contact phone is invalid. The phone number format is +NNN.NNNNNNNNNN'],
} as const satisfies Record<string, readonly [number, string]>;

/** Yearly prices of the TLDs the simulator sells; anything else is "TLD is not supported". */
export const SIM_PRICES: Record<string, number> = {
  com: 10.87,
  net: 12.98,
  org: 9.58,
  info: 4.98,
  io: 34.98,
  dev: 12.98,
  app: 14.98,
  xyz: 1.98,
  рф: 6.99,
  'xn--p1ai': 6.99,
};

export interface SimNcDomain {
  id: number;
  name: string;
  user: string;
  created: string;
  expires: string;
  nameServers: string[];
  isOurDns: boolean;
  locked: boolean;
  autoRenew: boolean;
  whoisGuard: boolean;
}

interface SimNcAccount {
  apiUser: string;
  apiKey: string;
  balance: number;
  domains: Map<string, SimNcDomain>;
}

export interface NamecheapSimState {
  nextId: number;
  accounts: Map<string, SimNcAccount>;
  /** Names that are registered somewhere else: create refuses them, getInfo answers 2016166. */
  takenElsewhere: Set<string>;
}

export interface NamecheapRequestLogEntry {
  command: string;
  apiUser: string;
  /** The parameters without ApiKey. */
  params: Record<string, string>;
}

export interface NamecheapSimFailure {
  /** '405': empty HTTP 405 (the rate-limit signal); '500000': the rate-limit error envelope; '5xx': an HTML 502 page; 'html': an HTML 200; 'slow': held back. */
  kind: '405' | '500000' | '5xx' | 'html' | 'slow';
  count?: number;
  delayMs?: number;
  /** Only calls of this command (lower case, e.g. 'namecheap.users.getpricing') fail; others pass. */
  command?: string;
}

export interface NamecheapSimOptions {
  port?: number;
  /** Calls per window per ApiUser before the limit answers; default 20 a minute, like Namecheap. */
  rateLimit?: { requests: number; windowMs: number } | false;
  /**
   * How the limit answers: the 500000 error envelope with HTTP 200 (default: the only real answer captured), or an
   * empty HTTP 405 (what the SDK documents).
   */
  rateLimitAnswer?: '405' | '500000';
  /** Client IPs that may call; empty means any. */
  whitelist?: string[];
  /** Demo mode: keep accounts and domains in this JSON file. */
  stateFile?: string;
}

export interface NamecheapSim {
  /** The endpoint URL, ending in /xml.response. */
  url: string;
  port: number;
  state: NamecheapSimState;
  requests: NamecheapRequestLogEntry[];
  addAccount(input: { apiUser: string; apiKey: string; balance?: number }): void;
  /** Adds a domain to an account; dates are YYYY-MM-DD. */
  addDomain(
    apiUser: string,
    name: string,
    opts?: { created?: string; expires?: string; nameServers?: string[]; locked?: boolean },
  ): SimNcDomain;
  domain(apiUser: string, name: string): SimNcDomain | undefined;
  fail(next: NamecheapSimFailure): void;
  clearFailures(): void;
  close(): Promise<void>;
}

const MAX_BODY = 256 * 1024;
const NAME_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

const ascii = (name: string) => domainToASCII(name.trim().toLowerCase()) || name.trim().toLowerCase();

const esc = (v: unknown) =>
  String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
const attrs = (o: Record<string, unknown>) =>
  Object.entries(o)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');

/** YYYY-MM-DD → MM/DD/YYYY, Namecheap's date form. */
const usDate = (iso: string) => {
  const [y, m, d] = iso.split('-');
  return `${m}/${d}/${y}`;
};
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const addYears = (iso: string, years: number) => {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return isoDay(d);
};

class NcError extends Error {
  constructor(
    readonly number: number,
    message: string,
  ) {
    super(message);
  }
}
const err = (e: readonly [number, string], detail?: string) => new NcError(e[0], detail ? `${e[1]}: ${detail}` : e[1]);

function envelope(command: string, status: 'OK' | 'ERROR', body: string, errors: NcError[] = []) {
  const errs = errors.length
    ? `<Errors>${errors.map((e) => `<Error Number="${e.number}">${esc(e.message)}</Error>`).join('')}</Errors>`
    : '<Errors />';
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<ApiResponse Status="${status}" xmlns="http://api.namecheap.com/xml.response">` +
    `${errs}<Warnings /><RequestedCommand>${esc(command.toLowerCase())}</RequestedCommand>${body}` +
    `<Server>SIM-NC01</Server><GMTTimeDifference>--5:00</GMTTimeDifference><ExecutionTime>0.01</ExecutionTime></ApiResponse>`
  );
}

export function createNamecheapState(): NamecheapSimState {
  return { nextId: 1_000_001, accounts: new Map(), takenElsewhere: new Set(['google.com', 'example.com']) };
}

function loadState(file: string): NamecheapSimState | undefined {
  const raw = readStateFile<{
    nextId: number;
    takenElsewhere: string[];
    accounts: { apiUser: string; apiKey: string; balance: number; domains: SimNcDomain[] }[];
  }>(file);
  if (!raw) return undefined;
  return {
    nextId: raw.nextId,
    takenElsewhere: new Set(raw.takenElsewhere),
    accounts: new Map(
      raw.accounts.map((a) => [a.apiUser.toLowerCase(), { ...a, domains: new Map(a.domains.map((d) => [d.name, d])) }]),
    ),
  };
}

function saveState(file: string, s: NamecheapSimState) {
  const raw = {
    nextId: s.nextId,
    takenElsewhere: [...s.takenElsewhere],
    accounts: [...s.accounts.values()].map((a) => ({ ...a, domains: [...a.domains.values()] })),
  };
  writeStateFile(file, raw);
}

export async function startNamecheapSim(opts: NamecheapSimOptions = {}): Promise<NamecheapSim> {
  const state = (opts.stateFile && loadState(opts.stateFile)) || createNamecheapState();
  const requests: NamecheapRequestLogEntry[] = [];
  const failures: NamecheapSimFailure[] = [];
  const limit = opts.rateLimit === false ? undefined : (opts.rateLimit ?? { requests: 20, windowMs: 60_000 });
  const calls = new Map<string, number[]>();
  const whitelist = new Set(opts.whitelist ?? []);
  const save = () => {
    if (opts.stateFile) saveState(opts.stateFile, state);
  };

  const owner = (name: string) => {
    for (const a of state.accounts.values()) if (a.domains.has(name)) return a;
    return undefined;
  };

  const addDomain: NamecheapSim['addDomain'] = (apiUser, name, o = {}) => {
    const account = state.accounts.get(apiUser.toLowerCase());
    if (!account) throw new Error(`no account ${apiUser}`);
    const created = o.created ?? isoDay(new Date());
    const d: SimNcDomain = {
      id: state.nextId++,
      name: ascii(name),
      user: account.apiUser,
      created,
      expires: o.expires ?? addYears(created, 1),
      nameServers: o.nameServers ?? DEFAULT_NAME_SERVERS,
      isOurDns: !o.nameServers,
      locked: o.locked ?? false,
      autoRenew: false,
      whoisGuard: true,
    };
    account.domains.set(d.name, d);
    save();
    return d;
  };

  /** Over the limit for this user? Counts the call when it is not. */
  const overLimit = (apiUser: string) => {
    if (!limit) return false;
    const now = Date.now();
    const list = (calls.get(apiUser) ?? []).filter((t) => t > now - limit.windowMs);
    if (list.length >= limit.requests) {
      calls.set(apiUser, list);
      return true;
    }
    list.push(now);
    calls.set(apiUser, list);
    return false;
  };

  const need = (p: Record<string, string>, name: string) => {
    const v = p[name.toLowerCase()]?.trim();
    if (!v) throw err(SIM_ERRORS.paramMissing, name);
    return v;
  };
  const domainFromSldTld = (p: Record<string, string>) => `${need(p, 'SLD')}.${need(p, 'TLD')}`.toLowerCase();
  const ownDomain = (account: SimNcAccount, name: string) => {
    const d = account.domains.get(name);
    if (d) return d;
    if (owner(name) || state.takenElsewhere.has(name)) throw err(SIM_ERRORS.notAssociated);
    throw err(SIM_ERRORS.domainNotFound);
  };
  const nameServerList = (raw: string) => {
    const list = raw
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (list.length < 2 || list.length > 12 || !list.every((n) => NAME_RE.test(n))) {
      throw err(SIM_ERRORS.paramInvalid, 'Nameservers');
    }
    return list;
  };
  const statusOf = (d: SimNcDomain) => (d.expires < isoDay(new Date()) ? 'Expired' : d.locked ? 'Locked' : 'Ok');

  const commands: Record<string, (a: SimNcAccount, p: Record<string, string>) => string> = {
    'namecheap.domains.getlist': (a, p) => {
      const listType = (p.listtype ?? 'ALL').toUpperCase();
      const term = (p.searchterm ?? '').toLowerCase();
      const page = Math.max(1, Number.parseInt(p.page ?? '1', 10) || 1);
      const pageSize = Math.min(100, Math.max(10, Number.parseInt(p.pagesize ?? '20', 10) || 20));
      const today = isoDay(new Date());
      const soon = isoDay(new Date(Date.now() + 30 * 86_400_000));
      let list = [...a.domains.values()].filter((d) => !term || d.name.includes(term));
      if (listType === 'EXPIRED') list = list.filter((d) => d.expires < today);
      else if (listType === 'EXPIRING') list = list.filter((d) => d.expires >= today && d.expires <= soon);
      const sort = (p.sortby ?? 'NAME').toUpperCase();
      const key = (d: SimNcDomain) =>
        sort.startsWith('EXPIREDATE') ? d.expires : sort.startsWith('CREATEDATE') ? d.created : d.name;
      list.sort((x, y) => key(x).localeCompare(key(y)) || x.name.localeCompare(y.name));
      if (sort.endsWith('_DESC')) list.reverse();
      const items = list.slice((page - 1) * pageSize, page * pageSize);
      const rows = items
        .map(
          (d) =>
            `<Domain${attrs({
              ID: d.id,
              Name: d.name,
              User: d.user,
              Created: usDate(d.created),
              Expires: usDate(d.expires),
              IsExpired: d.expires < today,
              IsLocked: d.locked,
              AutoRenew: d.autoRenew,
              WhoisGuard: d.whoisGuard ? 'ENABLED' : 'NOTPRESENT',
              IsPremium: false,
              IsOurDNS: d.isOurDns,
            })} />`,
        )
        .join('');
      return (
        `<CommandResponse Type="namecheap.domains.getList"><DomainGetListResult>${rows}</DomainGetListResult>` +
        `<Paging><TotalItems>${list.length}</TotalItems><CurrentPage>${page}</CurrentPage><PageSize>${pageSize}</PageSize></Paging></CommandResponse>`
      );
    },
    'namecheap.domains.getinfo': (a, p) => {
      const d = ownDomain(a, need(p, 'DomainName').toLowerCase());
      return (
        `<CommandResponse Type="namecheap.domains.getInfo"><DomainGetInfoResult${attrs({
          Status: statusOf(d),
          ID: d.id,
          DomainName: d.name,
          OwnerName: d.user,
          IsOwner: true,
          IsPremium: false,
        })}><DomainDetails><CreatedDate>${usDate(d.created)}</CreatedDate><ExpiredDate>${usDate(d.expires)}</ExpiredDate><NumYears>0</NumYears></DomainDetails>` +
        `<LockDetails /><Whoisguard Enabled="${d.whoisGuard ? 'True' : 'NotAlloted'}"><ID>${d.whoisGuard ? d.id : 0}</ID></Whoisguard>` +
        `<DnsDetails ProviderType="${d.isOurDns ? 'FREE' : 'CUSTOM'}" IsUsingOurDNS="${d.isOurDns}" HostCount="0" EmailType="No Email Service" DynamicDNSStatus="false" IsFailover="false">` +
        `${d.nameServers.map((n) => `<Nameserver>${esc(n)}</Nameserver>`).join('')}</DnsDetails><Modificationrights All="true" /></DomainGetInfoResult></CommandResponse>`
      );
    },
    'namecheap.domains.check': (_a, p) => {
      const names = need(p, 'DomainList')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
      if (names.length > 50) throw err(SIM_ERRORS.tooManyDomains);
      const rows = names.map((n) => {
        const tld = n.slice(n.indexOf('.') + 1);
        const supported = SIM_PRICES[tld] !== undefined;
        return `<DomainCheckResult${attrs({
          Domain: n,
          Available: supported && !owner(n) && !state.takenElsewhere.has(n),
          ErrorNo: supported ? 0 : SIM_ERRORS.tldUnsupported[0],
          Description: supported ? '' : SIM_ERRORS.tldUnsupported[1],
          IsPremiumName: false,
        })} />`;
      });
      return `<CommandResponse Type="namecheap.domains.check">${rows.join('')}</CommandResponse>`;
    },
    /**
     * users.getPricing (namecheap.md §9), in its documented shape: UserGetPricingResult > ProductType >
     * ProductCategory (named by the action) > Product (the TLD) > Price rows, one per duration of 1–10 years, each
     * a price per year in USD. ProductType is required; a ProductType, category or action Namecheap does not list
     * is refused, as is a promotion code (the simulator has none); a TLD it does not sell has no Product row.
     */
    'namecheap.users.getpricing': (_a, p) => {
      const type = need(p, 'ProductType').toUpperCase();
      if (type.length > 20) throw err(SIM_ERRORS.paramInvalid, 'ProductType');
      if (!['DOMAIN', 'SSLCERTIFICATE'].includes(type)) throw err(SIM_ERRORS.productTypeInvalid);
      if (p.promotioncode) throw err(SIM_ERRORS.promotionCodeInvalid);
      const category = (p.productcategory ?? '').toUpperCase();
      if (category && category !== (type === 'DOMAIN' ? 'DOMAINS' : 'COMODO'))
        throw err(SIM_ERRORS.paramInvalid, 'ProductCategory');
      const actions = type === 'DOMAIN' ? ['REGISTER', 'RENEW', 'REACTIVATE', 'TRANSFER'] : ['PURCHASE', 'RENEW'];
      const action = (p.actionname ?? '').toUpperCase();
      if (action && !actions.includes(action)) throw err(SIM_ERRORS.paramInvalid, 'ActionName');
      const product = (p.productname ?? '').toLowerCase();
      if (product.length > 20) throw err(SIM_ERRORS.paramInvalid, 'ProductName');
      // The simulator sells domains only: an SSL answer has no products.
      const tlds =
        type !== 'DOMAIN'
          ? []
          : Object.keys(SIM_PRICES).filter((t) => /^[a-z0-9-]+$/.test(t) && (!product || t === product));
      const categories = (action ? [action] : actions)
        .map((cat) => {
          const products = tlds
            .map((t) => {
              const rows = Array.from({ length: 10 }, (_, i) => {
                const price = SIM_PRICES[t]!.toFixed(2);
                return `<Price${attrs({ Duration: i + 1, DurationType: 'YEAR', Price: price, RegularPrice: price, YourPrice: price, CouponPrice: '', Currency: 'USD' })} />`;
              });
              return `<Product Name="${esc(t)}">${rows.join('')}</Product>`;
            })
            .join('');
          return `<ProductCategory Name="${cat}">${products}</ProductCategory>`;
        })
        .join('');
      return `<CommandResponse Type="namecheap.users.getPricing"><UserGetPricingResult><ProductType Name="${type}">${categories}</ProductType></UserGetPricingResult></CommandResponse>`;
    },
    'namecheap.domains.create': (a, p) => {
      const name = need(p, 'DomainName').toLowerCase();
      if (!NAME_RE.test(name)) throw err(SIM_ERRORS.domainInvalid);
      const years = Number.parseInt(p.years ?? '2', 10);
      if (!Number.isInteger(years) || years < 1 || years > 10) throw err(SIM_ERRORS.paramInvalid, 'Years');
      for (const role of ['Registrant', 'Tech', 'Admin', 'AuxBilling']) {
        for (const f of [
          'FirstName',
          'LastName',
          'Address1',
          'City',
          'StateProvince',
          'PostalCode',
          'Country',
          'Phone',
          'EmailAddress',
        ]) {
          need(p, `${role}${f}`);
        }
        if (!/^\+\d{1,3}\.\d{4,14}$/.test(p[`${role}Phone`.toLowerCase()]!)) throw err(SIM_ERRORS.phoneInvalid);
      }
      const price = SIM_PRICES[name.slice(name.indexOf('.') + 1)];
      if (price === undefined) throw err(SIM_ERRORS.tldUnsupported);
      if (owner(name) || state.takenElsewhere.has(name)) throw err(SIM_ERRORS.notAvailable);
      const nameServers = p.nameservers ? nameServerList(p.nameservers) : undefined;
      const charged = Math.round(price * years * 100) / 100;
      if (a.balance < charged) throw err(SIM_ERRORS.insufficientFunds);
      a.balance = Math.round((a.balance - charged) * 100) / 100;
      const created = isoDay(new Date());
      const d = addDomain(a.apiUser, name, { created, expires: addYears(created, years), nameServers });
      const orderId = state.nextId++;
      const transactionId = state.nextId++;
      save();
      return `<CommandResponse Type="namecheap.domains.create"><DomainCreateResult${attrs({
        Domain: d.name,
        Registered: true,
        ChargedAmount: charged.toFixed(2),
        DomainID: d.id,
        OrderID: orderId,
        TransactionID: transactionId,
        WhoisguardEnable: true,
        NonRealTimeDomain: false,
      })} /></CommandResponse>`;
    },
    'namecheap.domains.dns.setcustom': (a, p) => {
      const d = ownDomain(a, domainFromSldTld(p));
      d.nameServers = nameServerList(need(p, 'Nameservers'));
      d.isOurDns = false;
      save();
      return `<CommandResponse Type="namecheap.domains.dns.setCustom"><DomainDNSSetCustomResult Domain="${esc(d.name)}" Updated="true" /></CommandResponse>`;
    },
    'namecheap.domains.dns.setdefault': (a, p) => {
      const d = ownDomain(a, domainFromSldTld(p));
      d.nameServers = DEFAULT_NAME_SERVERS;
      d.isOurDns = true;
      save();
      return `<CommandResponse Type="namecheap.domains.dns.setDefault"><DomainDNSSetDefaultResult Domain="${esc(d.name)}" Updated="true" /></CommandResponse>`;
    },
    'namecheap.domains.dns.getlist': (a, p) => {
      const d = ownDomain(a, domainFromSldTld(p));
      return `<CommandResponse Type="namecheap.domains.dns.getList"><DomainDNSGetListResult${attrs({
        Domain: d.name,
        IsUsingOurDNS: d.isOurDns,
        IsPremiumDNS: false,
        IsUsingFreeDNS: false,
      })}>${d.nameServers.map((n) => `<Nameserver>${esc(n)}</Nameserver>`).join('')}</DomainDNSGetListResult></CommandResponse>`;
    },
  };

  /** Global parameters in the documented order: ApiUser → ApiKey → Command → ClientIp → whitelist → UserName. */
  const authenticate = (p: Record<string, string>): SimNcAccount => {
    if (!p.apiuser) throw err(SIM_ERRORS.apiUserMissing);
    if (!p.apikey) throw err(SIM_ERRORS.apiKeyMissing);
    if (!p.command) throw err(SIM_ERRORS.commandMissing);
    if (!p.clientip) throw err(SIM_ERRORS.clientIpMissing);
    const account = state.accounts.get(p.apiuser.toLowerCase());
    if (!account || account.apiKey !== p.apikey) throw err(SIM_ERRORS.apiKeyInvalid);
    if (whitelist.size && !whitelist.has(p.clientip)) throw err(SIM_ERRORS.ipInvalid, p.clientip);
    if ((p.username ?? '').toLowerCase() !== account.apiUser.toLowerCase()) throw err(SIM_ERRORS.userNameUnavailable);
    return account;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (url.pathname !== '/xml.response') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
      return;
    }
    const raw: Record<string, string> = {};
    for (const [k, v] of url.searchParams) raw[k.toLowerCase()] = v;
    if (req.method === 'POST') {
      for (const [k, v] of new URLSearchParams(await readBody(req, MAX_BODY))) raw[k.toLowerCase()] = v;
    }
    const command = (raw.command ?? '').toLowerCase();
    const { apikey: _key, ...logged } = raw;
    requests.push({ command, apiUser: raw.apiuser ?? '', params: logged });
    if (requests.length > 10_000) requests.splice(0, requests.length - 10_000);

    const failure = failures.find((f) => !f.command || f.command.toLowerCase() === command);
    if (failure) {
      failure.count = (failure.count ?? 1) - 1;
      if (failure.count <= 0) failures.splice(failures.indexOf(failure), 1);
      if (failure.kind === 'slow') await new Promise((r) => setTimeout(r, failure.delayMs ?? 2000));
      else if (failure.kind === '405') return void res.writeHead(405).end();
      else if (failure.kind === '5xx') {
        return void res
          .writeHead(502, { 'content-type': 'text/html' })
          .end('<html><body>502 Bad Gateway</body></html>');
      } else if (failure.kind === 'html') {
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!DOCTYPE html><html><body>Maintenance</body></html>');
      } else if (failure.kind === '500000') {
        return void send(res, envelope(command, 'ERROR', '', [err(SIM_ERRORS.rateLimited)]));
      }
    }
    if (raw.apiuser && overLimit(raw.apiuser.toLowerCase())) {
      if (opts.rateLimitAnswer === '405') return void res.writeHead(405).end();
      return void send(res, envelope(command, 'ERROR', '', [err(SIM_ERRORS.rateLimited)]));
    }
    try {
      const account = authenticate(raw);
      const run = commands[command];
      if (!run) throw err(SIM_ERRORS.unknownCommand);
      send(res, envelope(command, 'OK', run(account, raw)));
    } catch (e) {
      if (!(e instanceof NcError)) throw e;
      send(res, envelope(command, 'ERROR', '', [e]));
    }
  };

  const send = (res: ServerResponse, xml: string) => {
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(xml);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/html' }).end('<html>error</html>');
    });
  });
  const { port, close } = await listenOnLoopback(server, opts.port);

  return {
    url: `http://127.0.0.1:${port}/xml.response`,
    port,
    state,
    requests,
    addAccount({ apiUser, apiKey, balance }) {
      const key = apiUser.toLowerCase();
      const existing = state.accounts.get(key);
      if (existing) {
        existing.apiKey = apiKey;
        return;
      }
      state.accounts.set(key, { apiUser, apiKey, balance: balance ?? 1000, domains: new Map() });
      save();
    },
    addDomain,
    domain: (apiUser, name) => state.accounts.get(apiUser.toLowerCase())?.domains.get(ascii(name)),
    fail(next) {
      failures.push({ ...next });
    },
    clearFailures() {
      failures.length = 0;
    },
    close,
  };
}
