import { randomBytes } from 'node:crypto';

export type ZoneStatus = 'initializing' | 'pending' | 'active' | 'moved';
export type SslValue = 'off' | 'flexible' | 'full' | 'strict';
export type Tls13Value = 'on' | 'off' | 'zrt';

export interface SimAccount {
  id: string;
  name: string;
  email: string;
  /** The owner's user id, shown as the zone owner. */
  userId: string;
  globalAPIKey?: string;
  token?: string;
  /** An account-owned token cannot list accounts (Cloudflare answers 1001). */
  accountOwnedToken: boolean;
  createdOn: string;
  nameServers: [string, string];
}

export interface SimSetting<V extends string> {
  value: V;
  modifiedOn: string | null;
}

export interface SimDnsRecord {
  id: string;
  type: string;
  name: string;
  content: string;
  proxied: boolean;
  ttl: number;
  priority?: number;
  comment?: string;
  tags: string[];
  settings: Record<string, unknown>;
  data?: Record<string, unknown>;
  createdOn: string;
  modifiedOn: string;
}

export interface SimRule {
  id: string;
  ref: string;
  version: string;
  lastUpdated: string;
  action: string;
  expression: string;
  description: string;
  enabled: boolean;
  actionParameters?: Record<string, unknown>;
  logging?: { enabled: boolean };
  ratelimit?: Record<string, unknown>;
  exposedCredentialCheck?: Record<string, unknown>;
}

export interface SimRuleset {
  id: string;
  name: string;
  description: string;
  phase: string;
  version: number;
  lastUpdated: string;
  rules: SimRule[];
}

export type ZonePlan = 'free' | 'pro' | 'business' | 'enterprise';

const PLAN_NAMES: Record<ZonePlan, [name: string, price: number, id: string]> = {
  free: ['Free Website', 0, '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee'],
  pro: ['Pro Website', 25, '94f3b7b768b0458b56d2cac4fe5ec0f9'],
  business: ['Business Website', 250, '6e2b2a3b6e4a4c1a9d2f0f8e7d6c5b4a'],
  enterprise: ['Enterprise Website', 0, 'e1c0f7a2b3d4e5f60718293a4b5c6d7e'],
};

/** Records per DNS batch: 200 on Free, 3,500 on Pro, Business and Enterprise. */
export function dnsBatchLimitOf(plan: ZonePlan): number {
  return plan === 'free' ? 200 : 3_500;
}

export interface SimZone {
  id: string;
  name: string;
  accountId: string;
  status: ZoneStatus;
  paused: boolean;
  createdOn: string;
  modifiedOn: string;
  activatedOn: string | null;
  /** The plan decides how many records one DNS batch may hold (cloudflare.md §11). */
  plan: ZonePlan;
  settings: { ssl: SimSetting<SslValue>; tls_1_3: SimSetting<Tls13Value> };
  /** Insertion-ordered, so pages are stable. */
  dnsRecords: Map<string, SimDnsRecord>;
  rulesets: Map<string, SimRuleset>;
  /** How its analytics series runs (volume, a fall from a date on); absent: seeded from its id alone. */
  traffic?: { dailyRequests?: number; change?: { since: string; factor: number } };
}

export interface PurgeLogEntry {
  zoneId: string;
  at: string;
  body: Record<string, unknown>;
}

/** What the simulator saw; never holds a credential, only which scheme was used. */
export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  auth: 'token' | 'key' | 'none';
  status: number;
}

export interface CloudflareSimState {
  accounts: Map<string, SimAccount>;
  zones: Map<string, SimZone>;
  purgeLog: PurgeLogEntry[];
  requests: RequestLogEntry[];
}

export function newId(): string {
  return randomBytes(16).toString('hex');
}

export function nowIso(): string {
  return new Date().toISOString();
}

export const ID_RE = /^[0-9a-f]{32}$/;

// Cloudflare hands each account a stable pair of first names as nameservers.
const NS_NAMES = [
  'ada',
  'bob',
  'carl',
  'dana',
  'elsa',
  'fred',
  'gina',
  'hank',
  'iris',
  'jack',
  'kara',
  'liam',
  'lola',
  'mona',
  'nash',
  'olga',
  'pete',
  'rosa',
  'sam',
  'tess',
];

export function nameServersFor(accountId: string): [string, string] {
  const a = parseInt(accountId.slice(0, 8), 16) % NS_NAMES.length;
  const b = (a + 1 + (parseInt(accountId.slice(8, 16), 16) % (NS_NAMES.length - 1))) % NS_NAMES.length;
  return [`${NS_NAMES[a]}.ns.cloudflare.com`, `${NS_NAMES[b]}.ns.cloudflare.com`];
}

export function createState(): CloudflareSimState {
  return { accounts: new Map(), zones: new Map(), purgeLog: [], requests: [] };
}

export function addAccountTo(
  state: CloudflareSimState,
  input: { email: string; globalAPIKey?: string; token?: string; name?: string; accountOwnedToken?: boolean },
): SimAccount {
  if (!input.globalAPIKey && !input.token) throw new Error('addAccount needs a globalAPIKey or a token');
  const id = newId();
  const account: SimAccount = {
    id,
    name: input.name ?? `${input.email}'s Account`,
    email: input.email,
    userId: newId(),
    accountOwnedToken: input.accountOwnedToken ?? false,
    createdOn: nowIso(),
    nameServers: nameServersFor(id),
  };
  if (input.globalAPIKey) account.globalAPIKey = input.globalAPIKey;
  if (input.token) account.token = input.token;
  state.accounts.set(id, account);
  return account;
}

export function addZoneTo(
  state: CloudflareSimState,
  accountId: string,
  name: string,
  opts: { status?: ZoneStatus; ssl?: SslValue; tls13?: Tls13Value; plan?: ZonePlan } = {},
): SimZone {
  if (!state.accounts.has(accountId)) throw new Error(`unknown account ${accountId}`);
  const at = nowIso();
  const status = opts.status ?? 'pending';
  const zone: SimZone = {
    id: newId(),
    name: name.toLowerCase(),
    accountId,
    status,
    paused: false,
    createdOn: at,
    modifiedOn: at,
    activatedOn: status === 'active' ? at : null,
    plan: opts.plan ?? 'free',
    // The schema's defaults; the facts file says both depend on the plan.
    settings: {
      ssl: { value: opts.ssl ?? 'off', modifiedOn: null },
      tls_1_3: { value: opts.tls13 ?? 'off', modifiedOn: null },
    },
    dnsRecords: new Map(),
    rulesets: new Map(),
  };
  state.zones.set(zone.id, zone);
  return zone;
}

export function zoneJson(state: CloudflareSimState, zone: SimZone): Record<string, unknown> {
  const account = state.accounts.get(zone.accountId);
  return {
    id: zone.id,
    name: zone.name,
    status: zone.status,
    paused: zone.paused,
    type: 'full',
    development_mode: 0,
    name_servers: account ? [...account.nameServers] : [],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: zone.createdOn,
    modified_on: zone.modifiedOn,
    activated_on: zone.activatedOn,
    meta: {
      step: 2,
      custom_certificate_quota: 0,
      page_rule_quota: 3,
      phishing_detected: false,
      cdn_only: false,
      dns_only: false,
      foundation_dns: false,
    },
    owner: { id: account?.userId ?? '', type: 'user', name: account?.email ?? '' },
    account: { id: zone.accountId, name: account?.name ?? '' },
    permissions: ['#zone:read', '#zone:edit', '#dns_records:read', '#dns_records:edit'],
    plan: {
      id: PLAN_NAMES[zone.plan][2],
      name: PLAN_NAMES[zone.plan][0],
      price: PLAN_NAMES[zone.plan][1],
      currency: 'USD',
      frequency: zone.plan === 'free' ? '' : 'monthly',
      is_subscribed: zone.plan !== 'free',
      can_subscribe: false,
      legacy_id: zone.plan,
      legacy_discount: false,
      externally_managed: false,
    },
  };
}

export function accountJson(account: SimAccount): Record<string, unknown> {
  return {
    id: account.id,
    name: account.name,
    type: 'standard',
    created_on: account.createdOn,
    settings: {
      enforce_twofactor: false,
      use_account_custom_ns_by_default: false,
      default_nameservers: 'cloudflare.standard',
    },
  };
}
