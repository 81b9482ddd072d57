/** Cloudflare v4 wire shapes the console reads and writes (see ../shared/docs/integrations/cloudflare.md). */

export interface CloudflareCredentials {
  email?: string | null;
  globalAPIKey?: string | null;
  token?: string | null;
  /** When set, used as-is; otherwise looked up with GET /accounts (which account-owned tokens cannot call). */
  accountId?: string | null;
}

export interface CfResponseInfo {
  code: number;
  message: string;
  error_chain?: CfResponseInfo[];
  source?: { pointer?: string };
}

export interface CfResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages?: number;
}

export interface CfEnvelope<T> {
  success: boolean;
  errors: CfResponseInfo[];
  messages: CfResponseInfo[];
  result: T;
  result_info?: CfResultInfo;
}

export interface CfAccount {
  id: string;
  name: string;
  type?: 'standard' | 'enterprise';
  created_on?: string;
}

export type CfZoneStatus = 'initializing' | 'pending' | 'active' | 'moved';

export interface CfZone {
  id: string;
  name: string;
  status: CfZoneStatus;
  paused: boolean;
  type: string;
  name_servers: string[];
  original_name_servers: string[] | null;
  account: { id: string; name?: string };
  created_on: string;
  modified_on: string;
  activated_on: string | null;
  /** Marked deprecated, yet the only place the plan (and so the DNS batch limit) can be read. */
  plan?: { id?: string; name?: string; legacy_id?: string };
}

export type CfSettingId = 'ssl' | 'tls_1_3';
export type CfSslValue = 'off' | 'flexible' | 'full' | 'strict';
export type CfTls13Value = 'on' | 'off' | 'zrt';
export type CfSettingValue<S extends CfSettingId> = S extends 'ssl' ? CfSslValue : CfTls13Value;

export interface CfSetting<S extends CfSettingId = CfSettingId> {
  id: S;
  value: CfSettingValue<S>;
  editable?: boolean;
  modified_on?: string | null;
}

export interface CfDnsRecordInput {
  type: string;
  name: string;
  /** For the structured types (CAA, SRV, …) the client sends `data` built from it instead (record-body.ts). */
  content: string;
  /** Cloudflare's structured value for CAA, SRV, URI, …; answers carry it beside a computed content. */
  data?: Record<string, unknown>;
  /** 1 means automatic. */
  ttl?: number;
  proxied?: boolean;
  priority?: number;
  comment?: string;
  tags?: string[];
  settings?: Record<string, unknown>;
}

export interface CfDnsRecord extends CfDnsRecordInput {
  id: string;
  ttl: number;
  proxied: boolean;
  proxiable: boolean;
  created_on: string;
  modified_on: string;
}

export interface CfDnsBatch {
  deletes?: { id: string }[];
  patches?: (Partial<CfDnsRecordInput> & { id: string })[];
  puts?: (CfDnsRecordInput & { id: string })[];
  posts?: CfDnsRecordInput[];
}

export interface CfDnsBatchResult {
  deletes: CfDnsRecord[];
  patches: CfDnsRecord[];
  puts: CfDnsRecord[];
  posts: CfDnsRecord[];
  /** How many batch calls the change set took (more than one when it exceeded the per-batch limit). */
  batches: number;
}

export type CfRulesetPhase = 'http_request_firewall_custom' | 'http_request_dynamic_redirect';

export interface CfRuleInput {
  /** Keep the id of an existing rule to update it in place; leave it out for a new rule. */
  id?: string;
  ref?: string;
  action: string;
  expression: string;
  description?: string;
  /** Cloudflare's default is true. */
  enabled?: boolean;
  action_parameters?: Record<string, unknown>;
  logging?: { enabled: boolean };
  /** Any other field (ratelimit, exposed_credential_check, …): kept as it came, so foreign rules go back intact. */
  [field: string]: unknown;
}

export interface CfRule extends CfRuleInput {
  id: string;
  ref: string;
  version: string;
  last_updated: string;
  enabled: boolean;
}

export interface CfRuleset {
  id: string;
  name: string;
  description?: string;
  kind: string;
  phase: string;
  version: string;
  last_updated: string;
  rules: CfRule[];
}

export type CfRulesetSummary = Omit<CfRuleset, 'rules'>;

/** One error of a GraphQL answer (GraphQL Analytics API): `path` names the node, `extensions.timestamp` when. */
export interface CfGraphqlError {
  message: string;
  path?: (string | number)[] | null;
  extensions?: { timestamp?: string; code?: string };
}

/** A day's (`at` = YYYY-MM-DD) or an hour's (`at` = RFC 3339) HTTP traffic of a zone, from GraphQL Analytics. */
export interface CfTrafficPeriod {
  at: string;
  requests: number;
  pageViews: number;
  threats: number;
  bytes: number;
  cachedRequests: number;
  /** Unique visitor addresses (`uniq.uniques`). */
  uniques: number;
  /** Requests per edge response status (`responseStatusMap`). */
  statuses: { status: number; requests: number }[];
}
