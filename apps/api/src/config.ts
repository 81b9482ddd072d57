import { config as loadDotenv } from 'dotenv';
import { z } from 'zod';
import net from 'node:net';
import path from 'node:path';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const boolish = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/**
 * TRUST_PROXY as Fastify's trustProxy takes it: unset/false (the socket's address is the client's), true (trust
 * every hop: only behind a proxy that overwrites X-Forwarded-For), a hop count, or addresses/CIDRs of the proxies.
 */
export type TrustProxy = boolean | number | string[];
function parseTrustProxy(v: string | undefined, ctx: z.RefinementCtx): TrustProxy {
  const t = (v ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no', 'off'].includes(t)) return false;
  if (['true', 'yes', 'on'].includes(t)) return true;
  if (/^\d+$/.test(t)) {
    const hops = Number(t);
    if (hops > 100) ctx.addIssue({ code: 'custom', message: 'a hop count must be at most 100' });
    return hops;
  }
  const list = t
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const entry of list) {
    // proxy-addr's names for the private ranges.
    if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) continue;
    const [addr, bits, extra] = entry.split('/');
    const family = net.isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!family || !bitsOk || extra !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry.slice(0, 60)}" is not an IP address or CIDR; use true, false, a hop count, or a comma-separated list of addresses/CIDRs (or loopback, linklocal, uniquelocal)`,
      });
    }
  }
  return list;
}

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /**
   * Where the embedded PGlite database runs (no DATABASE_URL): `worker`, a thread of its own, so statements run
   * while the API thread serves requests; `main`, the API's thread (decision 052).
   */
  PGLITE_THREAD: z.enum(['worker', 'main']).default('worker'),
  APP_SECRET_KEY: z
    .string()
    .min(32, 'must be at least 32 characters (64 hex characters or 44 base64 characters recommended)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  ADMIN_USERNAME: z.string().trim().min(1).max(200).default('admin'),
  ADMIN_PASSWORD: z
    .string()
    .min(10, 'must be at least 10 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(12),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .positive()
    .max(60 * 24 * 30)
    .default(120),
  // Sign-in throttle (decision 012).
  LOGIN_FREE_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_DELAY_SECONDS: z.coerce.number().positive().max(3600).default(1),
  LOGIN_MAX_DELAY_MINUTES: z.coerce
    .number()
    .positive()
    .max(24 * 60)
    .default(15),
  LOGIN_WINDOW_MINUTES: z.coerce
    .number()
    .positive()
    .max(24 * 60)
    .default(15),
  LOGIN_ADDRESS_MAX_FAILURES: z.coerce.number().int().min(1).max(100_000).default(50),
  LOGIN_USERNAME_SLOW_AFTER: z.coerce.number().int().min(1).max(1_000_000).default(100),
  // Wrong two-factor codes per user, whatever the address (issue 42, decision 060).
  LOGIN_CODE_FREE_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_CODE_WINDOW_MINUTES: z.coerce
    .number()
    .positive()
    .max(24 * 60)
    .default(10),
  LOGIN_CODE_DELAY_SECONDS: z.coerce.number().positive().max(3600).default(30),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => parseTrustProxy(v, ctx)),
  // Request limits, rate limits and timeouts (decision 013).
  BODY_LIMIT_KB: z.coerce
    .number()
    .int()
    .min(1)
    .max(100 * 1024)
    .default(1024),
  JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(1000).default(32),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  RATE_LIMIT_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1200),
  RATE_LIMIT_LOGIN_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
  RATE_LIMIT_EXPENSIVE_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(10),
  /** Requests per minute of one personal API token (its own limit, apart from its owner's; decision 042). */
  RATE_LIMIT_TOKEN_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
  CONNECTION_IDLE_SECONDS: z.coerce.number().positive().max(3600).default(120),
  KEEP_ALIVE_SECONDS: z.coerce.number().positive().max(600).default(65),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SSH_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(10),
  CONTENT_UPLOAD_MAX_FILE_MB: z.coerce.number().positive().max(100_000).default(512),
  CONTENT_UPLOAD_MAX_FILES: z.coerce.number().int().min(1).max(100_000).default(1000),
  CONTENT_EDIT_MAX_KB: z.coerce.number().int().min(1).max(100_000).default(5120),
  // Content snapshots (decision 078): a change's files up to this size are kept in the database, larger ones in a
  // directory next to the domain directories on its server, up to a snapshot's and a server's bound; kept this long.
  CONTENT_SNAPSHOT_DB_KB: z.coerce.number().int().min(0).max(100_000).default(256),
  CONTENT_SNAPSHOT_MAX_MB: z.coerce.number().positive().max(1_000_000).default(512),
  CONTENT_SNAPSHOT_SERVER_MB: z.coerce.number().positive().max(10_000_000).default(2048),
  CONTENT_SNAPSHOT_MAX_FILES: z.coerce.number().int().min(1).max(100_000).default(20_000),
  CONTENT_SNAPSHOT_DAYS: z.coerce.number().positive().max(3650).default(14),
  DEMO: boolish,
  // /api/docs (the OpenAPI document lists every route): public when true; otherwise for signed-in callers.
  // Unset: public only in the demo.
  API_DOCS_PUBLIC: z
    .enum(['1', '0', 'true', 'false', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === '1' || v === 'true' || v === 'yes')),
  WEB_DIST: z.string().optional(),
  PROXY_CHECK_URL: z.url().default('https://www.cloudflare.com/cdn-cgi/trace'),
  CLOUDFLARE_API_URL: z.url().default('https://api.cloudflare.com/client/v4'),
  CLOUDFLARE_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  DIRECTADMIN_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  ISPMANAGER_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  CLOUDFLARE_BUDGET_PER_5_MIN: z.coerce.number().int().min(1).max(100_000).default(1200),
  /** The budget's window; Cloudflare's is 5 minutes (shorter only to match a simulator's compressed clock). */
  CLOUDFLARE_BUDGET_WINDOW_SECONDS: z.coerce.number().positive().max(3600).default(300),
  /** How much longer than the window a request is counted (send-to-arrival jitter); default 1 % of it, 250-1000 ms. */
  CLOUDFLARE_BUDGET_MARGIN_MS: z.coerce.number().int().min(0).max(60_000).optional(),
  /** Share of each account's budget fleet jobs leave to operators' own calls (decision 034). */
  CLOUDFLARE_INTERACTIVE_RESERVE: z.coerce.number().min(0.01).max(0.9).default(0.1),
  /**
   * Most domains of one Cloudflare account a fleet job works on at once. The budget paces them (its callers wait
   * in line for their slots, decision 054), so this only needs to be wide enough to fill the budget.
   */
  FLEET_ACCOUNT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(32),
  /**
   * A launch's waiting stages (zone active, Yandex verification): the first pause between checks, doubled up to
   * the longest, and how long a stage waits in all before it fails (Retry waits again).
   */
  LAUNCH_WAIT_FIRST_SECONDS: z.coerce.number().positive().max(3600).default(15),
  LAUNCH_WAIT_MAX_SECONDS: z.coerce
    .number()
    .positive()
    .max(6 * 3600)
    .default(600),
  /** Launches of one batch (many names at once) running at the same time; the providers' budgets pace them. */
  LAUNCH_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  LAUNCH_WAIT_LIMIT_MINUTES: z.coerce
    .number()
    .positive()
    .max(7 * 60)
    .default(6 * 60),
  /** Pages each list keeps in memory, each reused only while no table it reads has changed (decision 038); 0 turns it off. */
  LIST_PAGE_CACHE_SIZE: z.coerce.number().int().min(0).max(100_000).default(500),
  /** Run job workers inside the API process (on by default; `npm run worker` runs more elsewhere). */
  JOB_WORKERS: z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
    .optional()
    .transform((v) => v === undefined || v === '' || v === '1' || v === 'true' || v === 'yes'),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  JOB_POLL_SECONDS: z.coerce.number().min(0.5).max(600).default(2),
  JOB_MAINTENANCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  JOB_EXPIRE_GRACE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** How often a worker writes each running job's heartbeat (decision 039). */
  JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
  /** A running job whose heartbeat is this old lost its worker and is taken back (decision 039). */
  JOB_TAKEOVER_SECONDS: z.coerce.number().int().min(3).max(3600).default(45),
  SERVER_HEALTH_CHECK_MINUTES: z.coerce
    .number()
    .min(0)
    .max(24 * 60)
    .default(15),
  PROXY_CHECK_MINUTES: z.coerce
    .number()
    .min(0)
    .max(24 * 60)
    .default(10),
  // Fleet health (issue 28, decision 045): how often the periodic job runs, when a check is stale, its share.
  HEALTH_CYCLE_MINUTES: z.coerce
    .number()
    .min(0)
    .max(24 * 60)
    .default(5),
  /** The site over HTTPS, the zone's records, the server: checked again after this long. */
  HEALTH_CHEAP_MINUTES: z.coerce
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(30),
  /** Every check (several provider calls each): again after this long. */
  HEALTH_FULL_HOURS: z.coerce
    .number()
    .positive()
    .max(30 * 24)
    .default(24),
  /** Share of each Cloudflare account's background budget (the fleet share) the health job may use. */
  HEALTH_BUDGET_SHARE: z.coerce.number().min(0.01).max(1).default(0.5),
  HEALTH_MAX_DOMAINS_PER_RUN: z.coerce.number().int().min(1).max(100_000).default(2000),
  HEALTH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  // Traffic (issue 47, decision 070): each domain's Cloudflare analytics, read again after TRAFFIC_REFRESH_HOURS
  // by a periodic job every TRAFFIC_CYCLE_MINUTES (0: never), at most TRAFFIC_MAX_DOMAINS_PER_RUN a run.
  TRAFFIC_CYCLE_MINUTES: z.coerce
    .number()
    .min(0)
    .max(24 * 60)
    .default(30),
  TRAFFIC_REFRESH_HOURS: z.coerce
    .number()
    .positive()
    .max(7 * 24)
    .default(6),
  TRAFFIC_MAX_DOMAINS_PER_RUN: z.coerce.number().int().min(1).max(100_000).default(500),
  HEALTH_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(10),
  /** The port the HTTPS check connects to (443; the demo's and tests' sites listen elsewhere on loopback). */
  HEALTH_SITE_PORT: z.coerce.number().int().min(1).max(65_535).default(443),
  /** Take a certificate the system does not trust as trusted (the demo's self-signed sites only). */
  HEALTH_ACCEPT_UNTRUSTED_CERTS: boolish,
  // Alerts (issue 29, decision 046): how often problems are read and messages dispatched; the grouping window.
  ALERTS_EVALUATE_MINUTES: z.coerce.number().min(0).max(60).default(1),
  /** Problems that open within this many seconds of each other go out as one message per rule and channel. */
  ALERTS_GROUP_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** The first retry of a failed delivery waits this long, doubling after each failure (6 retries). */
  ALERTS_RETRY_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  /**
   * Let alert channels reach loopback, private, link-local and unique-local addresses (internal receivers; the
   * demo's own). Off: such destinations are refused after resolving the name, on every connection (decision 058).
   */
  ALERT_ALLOW_PRIVATE_DESTINATIONS: boolish,
  /** The console's address, for links in messages (none: messages name the page without a link). */
  ALERTS_CONSOLE_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  // The parser (decision 028): fetches at once per job, per-request timeout, retries, and its size limits.
  PARSER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  PARSER_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(20),
  PARSER_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  PARSER_MAX_FILE_MB: z.coerce.number().positive().max(10_000).default(50),
  PARSER_MAX_JOB_MB: z.coerce.number().positive().max(1_000_000).default(2048),
  PARSER_MAX_PAGES: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  PARSER_JOB_TIMEOUT_MINUTES: z.coerce
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(12 * 60),
  // Namecheap accepts API calls only from whitelisted addresses; the console sends this one as ClientIp.
  NAMECHEAP_CLIENT_IP: z
    .union([z.ipv4({ message: 'must be an IPv4 address' }), z.literal('').transform(() => undefined)])
    .optional(),
  NAMECHEAP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  /** The window of that budget: 60 s, shorter only on a compressed clock (benchmarks and tests). */
  NAMECHEAP_BUDGET_WINDOW_SECONDS: z.coerce.number().positive().max(60).default(60),
  NAMECHEAP_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(20),
  YANDEX_WEBMASTER_API_URL: z.url().default('https://api.webmaster.yandex.net/v4'),
  YANDEX_WEBMASTER_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  /** Google Search Console (decision 077): the Search Console API's root and the Site Verification API's base. */
  GOOGLE_SEARCH_CONSOLE_API_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .default('https://searchconsole.googleapis.com'),
  GOOGLE_SITE_VERIFICATION_API_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .default('https://www.googleapis.com/siteVerification/v1'),
  /** When set, access tokens are asked for here instead of at each key's token_uri (the demo's simulator). */
  GOOGLE_TOKEN_URL: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  GOOGLE_SEARCH_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  /** Where IndexNow submissions go (decision 075): api.indexnow.org shares them with every participating engine. */
  INDEXNOW_ENDPOINT: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .default('https://api.indexnow.org/indexnow'),
  INDEXNOW_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
  /** How often URLs held back past the day's recrawl quota are offered again; 0 turns it off. */
  YANDEX_RECRAWL_DRAIN_MINUTES: z.coerce
    .number()
    .min(0)
    .max(24 * 60)
    .default(60),
  /** On SIGTERM/SIGINT: how long requests and job steps in flight get to finish before the process stops anyway. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(25),
  // Single sign-on with an OpenID Connect provider (decision 042); off while OIDC_ISSUER is unset.
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_CLIENT_ID: z.string().trim().max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().max(2000).optional(),
  OIDC_SCOPES: z
    .string()
    .trim()
    .max(1000)
    .default('openid profile email')
    .refine((v) => v.split(/\s+/).includes('openid'), 'must include openid'),
  /** The console's public address: the provider sends users back to <base>/auth/oidc/callback. */
  OIDC_REDIRECT_BASE: z
    .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Shown on the sign-in button: "Sign in with <name>". */
  OIDC_PROVIDER_NAME: z.string().trim().min(1).max(60).default('single sign-on'),
  OIDC_ALLOW_CREATE_USERS: boolish,
  OIDC_GROUPS_CLAIM: z.string().trim().min(1).max(200).default('groups'),
  /** JSON object of group → role name, e.g. {"ops":"Operators"}; the roles named here are managed by the mapping. */
  OIDC_GROUP_ROLES: z
    .string()
    .max(20_000)
    .optional()
    .transform((v, ctx): Record<string, string> => {
      if (!v?.trim()) return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of group → role name' });
        return {};
      }
      const r = z.record(z.string().min(1).max(500), z.string().trim().min(1).max(200)).safeParse(parsed);
      if (!r.success) {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of group → role name (strings)' });
        return {};
      }
      return r.data;
    }),
  /**
   * Whether the provider's MFA stands in for the console's two-factor (decision 042): off, a user whose role
   * requires two-factor (or who turned it on) is always asked for the console's code after single sign-on.
   */
  OIDC_TRUST_PROVIDER_MFA: z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
    .optional()
    .transform((v) => v === undefined || v === '' || v === '1' || v === 'true' || v === 'yes'),
  /** `amr` values that mean the provider checked a second factor (RFC 8176). */
  OIDC_MFA_AMR: z
    .string()
    .max(1000)
    .default('mfa,otp,hwk')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  /** `acr` values this provider uses for a sign-in with a second factor (none by default). */
  OIDC_MFA_ACR: z
    .string()
    .max(2000)
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  /** Off: only the break-glass administrator may still sign in with a password. */
  PASSWORD_SIGN_IN: z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
    .optional()
    .transform((v) => v === undefined || v === '' || v === '1' || v === 'true' || v === 'yes'),
  /** The one user who keeps password sign-in when PASSWORD_SIGN_IN is off (default: ADMIN_USERNAME). */
  BREAK_GLASS_USERNAME: z.string().trim().min(1).max(200).optional(),
  /** Bearer token of GET /metrics (Prometheus); the endpoint is off while this is unset. */
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512)
    .optional()
    .or(z.literal('').transform(() => undefined)),
});

const isLoopback = (u: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);

/** Rules across variables: an issuer needs a client and an address to come back to; password off needs SSO on. */
const CheckedConfigSchema = ConfigSchema.superRefine((c, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (c.OIDC_ISSUER) {
    if (!c.OIDC_CLIENT_ID) issue('OIDC_CLIENT_ID', 'is required when OIDC_ISSUER is set');
    if (!c.OIDC_CLIENT_SECRET) issue('OIDC_CLIENT_SECRET', 'is required when OIDC_ISSUER is set');
    if (!c.OIDC_REDIRECT_BASE) issue('OIDC_REDIRECT_BASE', 'is required when OIDC_ISSUER is set');
    const u = new URL(c.OIDC_ISSUER);
    if (u.protocol !== 'https:' && !isLoopback(u)) issue('OIDC_ISSUER', 'must be https (http only on loopback)');
  }
  if (!c.PASSWORD_SIGN_IN && !c.OIDC_ISSUER) {
    issue('PASSWORD_SIGN_IN', 'can be turned off only when single sign-on is configured (OIDC_ISSUER)');
  }
});

export type Config = Omit<z.infer<typeof ConfigSchema>, 'DATA_DIR'> & { DATA_DIR: string };

export class ConfigError extends Error {}

/** The only reader of process.env. Fails with every bad variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: { dotenv?: boolean } = {}): Config {
  if (opts.dotenv !== false) loadDotenv({ quiet: true });
  const parsed = CheckedConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = path.resolve(c.DATA_DIR ?? (c.DEMO ? './data/demo' : './data'));
  return { ...c, DATA_DIR: dataDir };
}
