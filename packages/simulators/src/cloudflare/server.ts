import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { loadState, saveState } from './state-file.ts';
import { CfError, cfErrors, failure, ok, type Envelope, type ResultInfo } from './envelope.ts';
import { applyBatch, createRecord, deleteRecord, filterRecords, recordJson, updateRecord } from './dns-records.ts';
import { putEntrypoint, RULESET_PHASES, rulesetJson } from './rulesets.ts';
import { refusalOf, warmRequestValidator } from './openapi/request-check.ts';
import {
  accountJson,
  addAccountTo,
  addZoneTo,
  createState,
  ID_RE,
  nowIso,
  zoneJson,
  type CloudflareSimState,
  type SimAccount,
  type SimDnsRecord,
  type SimZone,
  type SslValue,
  type Tls13Value,
  type ZoneStatus,
  type ZonePlan,
  type RequestLogEntry,
  dnsBatchLimitOf,
} from './sim-state.ts';
import { answerGraphql, type TrafficShape } from './analytics.ts';
import { readBody } from '../http-body.ts';
import { createFailureQueue, listenOnLoopback } from '../http-server.ts';

export interface CloudflareSimOptions {
  port?: number;
  /** Records per DNS batch for every zone; by default the zone's plan decides (200 on Free, 3,500 on paid plans). */
  dnsBatchLimit?: number;
  /**
   * Opt-in: answer 429 (code 971) once an account exceeds this many requests in the sliding window, like
   * Cloudflare (1,200 per 5 minutes). A short window is a compressed clock (benchmarks, the fleet tests).
   * Also from the environment: CLOUDFLARE_SIM_RATE_LIMIT="120/10" (requests / seconds).
   */
  rateLimit?: { requests: number; windowMs: number };
  /** Demo mode: keep accounts and zones in this JSON file, loaded at start and written after every change. */
  stateFile?: string;
}

export interface CloudflareFailure {
  /** 'edge_block': the HTML 403 page Cloudflare's edge serves to a blocked address (before the API sees the call). */
  kind: '5xx' | '429' | 'slow' | 'bad_credentials' | 'edge_block';
  /** How many of the next requests get this failure (default 1). */
  count?: number;
  /** For '429': seconds in the retry-after header (default 1). */
  retryAfter?: number;
  /** For 'slow': how long each response is held back (default 2000). */
  delayMs?: number;
  /** For '5xx': the status (default 500). 502, 503 and 504 come as the edge's HTML page, like the real thing. */
  status?: number;
}

export interface AddAccountInput {
  email: string;
  globalAPIKey?: string;
  token?: string;
  name?: string;
  accountOwnedToken?: boolean;
}

export interface CloudflareSim {
  /** Base URL ending in /client/v4. */
  url: string;
  port: number;
  state: CloudflareSimState;
  addAccount(input: AddAccountInput): { accountId: string };
  addZone(
    accountId: string,
    name: string,
    opts?: { status?: ZoneStatus; ssl?: SslValue; tls13?: Tls13Value; plan?: ZonePlan },
  ): { zoneId: string; nameServers: string[] };
  /** Per account: requests let through by the rate limit, and those answered 429 by it. */
  usage(): Map<string, { requests: number; rateLimited: number }>;
  /** Changes a zone's plan (and so its DNS batch limit). */
  setZonePlan(zoneId: string, plan: ZonePlan): void;
  /**
   * Test hook: runs after each request was handled, before the answer is sent (e.g. to change a zone "at the
   * dashboard" between two calls of the console). Returns a function that removes it.
   */
  afterRequest(hook: (entry: RequestLogEntry) => void): () => void;
  /** Adds a record as if created through the API (same validation); returns its id. */
  addDnsRecord(zoneId: string, record: Record<string, unknown>): string;
  /** Cloudflare activates a zone once its nameservers point at Cloudflare; this stands in for that. */
  setZoneStatus(zoneId: string, status: ZoneStatus): void;
  /** Shapes a zone's analytics series (its usual volume, a fall from a date on); by default seeded from its id. */
  setZoneTraffic(zoneId: string, shape: TrafficShape): void;
  fail(next: CloudflareFailure): void;
  clearFailures(): void;
  purgeLog: CloudflareSimState['purgeLog'];
  close(): Promise<void>;
}

const BASE = '/client/v4';
const MAX_BODY = 10 * 1024 * 1024;
const MAX_LOG = 50_000;

interface Ctx {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  account: SimAccount;
  scheme: 'token' | 'key';
  params: Record<string, string>;
}

type Handler = (ctx: Ctx) => Envelope;

function paginate<T>(
  items: T[],
  q: URLSearchParams,
  bounds: { def: number; min: number; max: number },
): { slice: T[]; info: ResultInfo } {
  const num = (key: string, def: number, min: number, max: number): number => {
    const raw = q.get(key);
    if (raw === null || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw cfErrors.badParam(`${key} must be an integer between ${min} and ${max}`);
    }
    return n;
  };
  const page = num('page', 1, 1, Number.MAX_SAFE_INTEGER);
  const perPage = num('per_page', bounds.def, bounds.min, bounds.max);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  return {
    slice,
    info: {
      page,
      per_page: perPage,
      count: slice.length,
      total_count: items.length,
      total_pages: Math.max(1, Math.ceil(items.length / perPage)),
    },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ZONE_NAME_RE = /^([a-zA-Z0-9][-a-zA-Z0-9]*\.)+[-a-zA-Z0-9]{2,20}$/;
const SETTING_VALUES: Record<string, readonly string[]> = {
  ssl: ['off', 'flexible', 'full', 'strict'],
  tls_1_3: ['on', 'off', 'zrt'],
};

/** `name` filters on /zones take an optional operator prefix, e.g. `contains:.org`. */
function nameMatcher(raw: string): (name: string) => boolean {
  const m =
    /^(equal|not_equal|starts_with|ends_with|contains|starts_with_case_sensitive|ends_with_case_sensitive|contains_case_sensitive):(.*)$/.exec(
      raw,
    );
  const op = m?.[1] ?? 'equal';
  const rawValue = m ? (m[2] ?? '') : raw;
  const cs = op.endsWith('_case_sensitive');
  const value = cs ? rawValue : rawValue.toLowerCase();
  const norm = (n: string) => (cs ? n : n.toLowerCase());
  switch (op.replace('_case_sensitive', '')) {
    case 'not_equal':
      return (n) => norm(n) !== value;
    case 'starts_with':
      return (n) => norm(n).startsWith(value);
    case 'ends_with':
      return (n) => norm(n).endsWith(value);
    case 'contains':
      return (n) => norm(n).includes(value);
    default:
      return (n) => norm(n) === value;
  }
}

/** CLOUDFLARE_SIM_RATE_LIMIT="120/10": 120 requests per 10 s per account; undefined when unset or malformed. */
export function rateLimitFromEnv(v: string | undefined): CloudflareSimOptions['rateLimit'] {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(v ?? '');
  if (!m) return undefined;
  const requests = Number(m[1]);
  const windowMs = Math.round(Number(m[2]) * 1000);
  return requests > 0 && windowMs > 0 ? { requests, windowMs } : undefined;
}

export async function startCloudflareSim(opts: CloudflareSimOptions = {}): Promise<CloudflareSim> {
  opts = { ...opts, rateLimit: opts.rateLimit ?? rateLimitFromEnv(process.env.CLOUDFLARE_SIM_RATE_LIMIT) };
  const state = createState();
  const usage = new Map<string, { requests: number; rateLimited: number }>();
  if (opts.stateFile) loadState(state, opts.stateFile);
  const failures = createFailureQueue<CloudflareFailure>();
  const batchLimitOf = (zone: SimZone) => opts.dnsBatchLimit ?? dnsBatchLimitOf(zone.plan);
  const hooks = new Set<(entry: RequestLogEntry) => void>();
  const windows = new Map<string, number[]>();

  const recordTypeOf = (id: string): string | undefined => {
    for (const zone of state.zones.values()) {
      const r = zone.dnsRecords.get(id);
      if (r) return r.type;
    }
    return undefined;
  };
  warmRequestValidator();
  /** The CfError `fn` throws when run against a copy of the zones, or undefined. */
  const dryRun = (fn: () => unknown): CfError | undefined => {
    const { zones, purgeLog } = state;
    state.zones = structuredClone(zones);
    state.purgeLog = [];
    try {
      fn();
      return undefined;
    } catch (err) {
      return err instanceof CfError ? err : undefined;
    } finally {
      state.zones = zones;
      state.purgeLog = purgeLog;
    }
  };

  const zoneFor = (ctx: Ctx): SimZone => {
    const id = ctx.params.zone ?? '';
    if (!ID_RE.test(id)) throw cfErrors.noRoute(`${BASE}${ctx.path}`);
    const zone = state.zones.get(id);
    if (!zone) throw cfErrors.noRoute(`${BASE}${ctx.path}`, 404);
    // Another account's zone: Cloudflare answers as for a token without permission on it.
    if (zone.accountId !== ctx.account.id) throw cfErrors.authentication();
    return zone;
  };
  const bodyObject = (ctx: Ctx): Record<string, unknown> => {
    if (!isObject(ctx.body)) throw cfErrors.malformedJson();
    return ctx.body;
  };
  const settingOf = (ctx: Ctx): 'ssl' | 'tls_1_3' => {
    const s = ctx.params.setting ?? '';
    if (s !== 'ssl' && s !== 'tls_1_3') {
      throw new CfError(400, [{ code: 1006, message: 'Unrecognized zone setting name' }]);
    }
    return s;
  };
  const settingJson = (zone: SimZone, s: 'ssl' | 'tls_1_3') => ({
    id: s,
    value: zone.settings[s].value,
    editable: true,
    modified_on: zone.settings[s].modifiedOn,
  });
  const phaseOf = (ctx: Ctx): string => {
    const phase = ctx.params.phase ?? '';
    if (!RULESET_PHASES.has(phase)) throw cfErrors.noRoute(`${BASE}${ctx.path}`);
    return phase;
  };
  const recordOf = (zone: SimZone, ctx: Ctx): SimDnsRecord => {
    const id = ctx.params.record ?? '';
    if (!ID_RE.test(id)) throw cfErrors.noRoute(`${BASE}${ctx.path}`);
    const r = zone.dnsRecords.get(id);
    if (!r) throw cfErrors.recordNotFound();
    return r;
  };

  const routes: [string, string, Handler][] = [
    [
      'GET',
      '/accounts',
      (ctx) => {
        if (ctx.account.accountOwnedToken && ctx.scheme === 'token') throw cfErrors.accountOwnedToken();
        let list = [ctx.account];
        const name = ctx.query.get('name');
        if (name) list = list.filter((a) => a.name === name);
        if (ctx.query.get('direction') === 'desc') list.reverse();
        const { slice, info } = paginate(list, ctx.query, { def: 20, min: 5, max: 50 });
        return ok(slice.map(accountJson), info);
      },
    ],
    [
      'GET',
      '/zones',
      (ctx) => {
        const q = ctx.query;
        const tests: ((z: SimZone) => boolean)[] = [];
        const name = q.get('name');
        if (name !== null) {
          const m = nameMatcher(name);
          tests.push((z) => m(z.name));
        }
        const status = q.get('status');
        if (status !== null) {
          if (!['initializing', 'pending', 'active', 'moved'].includes(status)) {
            throw cfErrors.badParam('status must be one of initializing, pending, active, moved');
          }
          tests.push((z) => z.status === status);
        }
        const accountId = q.get('account.id');
        if (accountId !== null) tests.push((z) => z.accountId === accountId);
        const accountName = q.get('account.name');
        if (accountName !== null) {
          const m = nameMatcher(accountName);
          tests.push((z) => m(state.accounts.get(z.accountId)?.name ?? ''));
        }
        const any = q.get('match') === 'any';
        let list = [...state.zones.values()].filter((z) => z.accountId === ctx.account.id);
        if (tests.length > 0) list = list.filter((z) => (any ? tests.some((t) => t(z)) : tests.every((t) => t(z))));
        const order = q.get('order');
        if (order) {
          const key = (z: SimZone): string =>
            order === 'status' ? z.status : order === 'account.id' ? z.accountId : order === 'name' ? z.name : '';
          const dir = q.get('direction') === 'desc' ? -1 : 1;
          list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * dir);
        }
        const { slice, info } = paginate(list, q, { def: 20, min: 5, max: 50 });
        return ok(
          slice.map((z) => zoneJson(state, z)),
          info,
        );
      },
    ],
    [
      'POST',
      '/zones',
      (ctx) => {
        const body = bodyObject(ctx);
        const name = body.name;
        if (typeof name !== 'string' || name.length > 253 || !ZONE_NAME_RE.test(name)) {
          throw cfErrors.invalidZoneName(String(name ?? ''));
        }
        const account = body.account;
        if (!isObject(account) || typeof account.id !== 'string') throw cfErrors.badParam('account.id is required');
        if (account.id !== ctx.account.id) throw cfErrors.zoneCreatePermission();
        if (body.type !== undefined && body.type !== 'full') {
          throw cfErrors.badParam('type must be full (the simulator only hosts full zones)');
        }
        const lower = name.toLowerCase();
        if ([...state.zones.values()].some((z) => z.name === lower)) throw cfErrors.zoneExists(lower);
        return ok(zoneJson(state, addZoneTo(state, ctx.account.id, lower)));
      },
    ],
    ['GET', '/zones/:zone', (ctx) => ok(zoneJson(state, zoneFor(ctx)))],
    [
      'DELETE',
      '/zones/:zone',
      (ctx) => {
        const zone = zoneFor(ctx);
        state.zones.delete(zone.id);
        return ok({ id: zone.id });
      },
    ],
    [
      'GET',
      '/zones/:zone/settings/:setting',
      (ctx) => {
        const zone = zoneFor(ctx);
        return ok(settingJson(zone, settingOf(ctx)));
      },
    ],
    [
      'PATCH',
      '/zones/:zone/settings/:setting',
      (ctx) => {
        const zone = zoneFor(ctx);
        const s = settingOf(ctx);
        const value = bodyObject(ctx).value;
        if (typeof value !== 'string' || !SETTING_VALUES[s]?.includes(value)) throw cfErrors.invalidSettingValue(s);
        const at = nowIso();
        if (s === 'ssl') zone.settings.ssl = { value: value as SslValue, modifiedOn: at };
        else zone.settings.tls_1_3 = { value: value as Tls13Value, modifiedOn: at };
        zone.modifiedOn = at;
        return ok(settingJson(zone, s));
      },
    ],
    [
      'GET',
      '/zones/:zone/dns_records',
      (ctx) => {
        const zone = zoneFor(ctx);
        const type = ctx.query.get('type');
        if (type !== null && !/^[A-Za-z]+$/.test(type)) throw cfErrors.badParam('type is not a DNS record type');
        const q = new URLSearchParams(ctx.query);
        if (!q.has('order')) q.set('order', 'type');
        const { slice, info } = paginate(filterRecords(zone, q), q, { def: 100, min: 5, max: 5_000_000 });
        return ok(slice.map(recordJson), info);
      },
    ],
    ['POST', '/zones/:zone/dns_records', (ctx) => ok(recordJson(createRecord(zoneFor(ctx), bodyObject(ctx))))],
    [
      'POST',
      '/zones/:zone/dns_records/batch',
      (ctx) => {
        const zone = zoneFor(ctx);
        const r = applyBatch(zone, bodyObject(ctx), batchLimitOf(zone));
        return ok({
          deletes: r.deletes.map(recordJson),
          patches: r.patches.map(recordJson),
          puts: r.puts.map(recordJson),
          posts: r.posts.map(recordJson),
        });
      },
    ],
    [
      'GET',
      '/zones/:zone/dns_records/:record',
      (ctx) => {
        const zone = zoneFor(ctx);
        return ok(recordJson(recordOf(zone, ctx)));
      },
    ],
    [
      'PATCH',
      '/zones/:zone/dns_records/:record',
      (ctx) => {
        const zone = zoneFor(ctx);
        const id = recordOf(zone, ctx).id;
        return ok(recordJson(updateRecord(zone, id, bodyObject(ctx), 'patch')));
      },
    ],
    [
      'PUT',
      '/zones/:zone/dns_records/:record',
      (ctx) => {
        const zone = zoneFor(ctx);
        const id = recordOf(zone, ctx).id;
        return ok(recordJson(updateRecord(zone, id, bodyObject(ctx), 'put')));
      },
    ],
    [
      'DELETE',
      '/zones/:zone/dns_records/:record',
      (ctx) => {
        const zone = zoneFor(ctx);
        const r = deleteRecord(zone, recordOf(zone, ctx).id);
        return ok({ id: r.id });
      },
    ],
    [
      'GET',
      '/zones/:zone/rulesets',
      (ctx) => ok([...zoneFor(ctx).rulesets.values()].map((rs) => rulesetJson(rs, false))),
    ],
    [
      'GET',
      '/zones/:zone/rulesets/phases/:phase/entrypoint',
      (ctx) => {
        const zone = zoneFor(ctx);
        const phase = phaseOf(ctx);
        const rs = zone.rulesets.get(phase);
        if (!rs) throw cfErrors.noEntrypoint(phase);
        return ok(rulesetJson(rs));
      },
    ],
    [
      'PUT',
      '/zones/:zone/rulesets/phases/:phase/entrypoint',
      (ctx) => {
        const zone = zoneFor(ctx);
        return ok(rulesetJson(putEntrypoint(zone, phaseOf(ctx), ctx.body)));
      },
    ],
    [
      'POST',
      '/zones/:zone/purge_cache',
      (ctx) => {
        const zone = zoneFor(ctx);
        const body = bodyObject(ctx);
        const everything = body.purge_everything === true;
        const lists = ['files', 'tags', 'hosts', 'prefixes'].filter((k) => Array.isArray(body[k]));
        if (everything === lists.length > 0 || lists.length > 1) throw cfErrors.purgeBody();
        state.purgeLog.push({ zoneId: zone.id, at: nowIso(), body: structuredClone(body) });
        if (state.purgeLog.length > MAX_LOG) state.purgeLog.splice(0, state.purgeLog.length - MAX_LOG);
        return ok({ id: zone.id });
      },
    ],
  ];

  const match = (method: string, path: string): { handler: Handler; params: Record<string, string> } | CfError => {
    const segs = path.split('/').filter(Boolean);
    let pathMatched = false;
    for (const [m, pattern, handler] of routes) {
      const ps = pattern.split('/').filter(Boolean);
      if (ps.length !== segs.length) continue;
      const params: Record<string, string> = {};
      const hit = ps.every((p, i) => {
        const s = segs[i] ?? '';
        if (p.startsWith(':')) {
          params[p.slice(1)] = decodeURIComponent(s);
          return true;
        }
        return p === s;
      });
      if (!hit) continue;
      // A literal route (…/dns_records/batch) wins over a parameter one only for its own method.
      if (m === method) return { handler, params };
      pathMatched = true;
    }
    return pathMatched ? cfErrors.methodNotAllowed(method) : cfErrors.noRoute(`${BASE}${path}`);
  };

  const authenticate = (req: IncomingMessage): { account: SimAccount; scheme: 'token' | 'key'; key: string } => {
    const authz = req.headers.authorization;
    const email = req.headers['x-auth-email'];
    const key = req.headers['x-auth-key'];
    if (authz !== undefined) {
      if (email !== undefined || key !== undefined) {
        throw cfErrors.invalidHeaders([
          { code: 6100, message: 'Use either an API token or an email and global API key, not both' },
        ]);
      }
      const m = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(authz);
      if (!m?.[1]) throw cfErrors.invalidHeaders([{ code: 6111, message: 'Invalid format for Authorization header' }]);
      const token = m[1];
      const account = [...state.accounts.values()].find((a) => a.token !== undefined && a.token === token);
      if (!account) throw cfErrors.authentication();
      return { account, scheme: 'token', key: `t:${account.id}` };
    }
    const chain = [];
    const emailOk = typeof email === 'string' && /^[^@\s]+@[^@\s]+$/.test(email);
    const keyOk = typeof key === 'string' && key.trim() !== '';
    if (!emailOk) chain.push({ code: 6102, message: 'Invalid format for X-Auth-Email header' });
    if (!keyOk) chain.push({ code: 6103, message: 'Invalid format for X-Auth-Key header' });
    if (chain.length > 0) throw cfErrors.invalidHeaders(chain);
    const account = [...state.accounts.values()].find(
      (a) =>
        a.globalAPIKey !== undefined &&
        a.email.toLowerCase() === (email as string).toLowerCase() &&
        a.globalAPIKey === key,
    );
    if (!account) throw cfErrors.unknownKey();
    return { account, scheme: 'key', key: `k:${account.id}` };
  };

  const checkRateLimit = (key: string): void => {
    const u = usage.get(key) ?? { requests: 0, rateLimited: 0 };
    usage.set(key, u);
    u.requests++;
    if (!opts.rateLimit) return;
    const now = Date.now();
    const list = (windows.get(key) ?? []).filter((t) => t > now - opts.rateLimit!.windowMs);
    if (list.length >= opts.rateLimit.requests) {
      u.requests--;
      u.rateLimited++;
      windows.set(key, list);
      const wait = Math.ceil(((list[0] ?? now) + opts.rateLimit.windowMs - now) / 1000);
      throw cfErrors.rateLimited(Math.max(1, wait));
    }
    list.push(now);
    windows.set(key, list);
  };

  const send = (
    res: ServerResponse,
    status: number,
    body: Envelope | string,
    headers: Record<string, string> = {},
  ): void => {
    if (res.destroyed || res.headersSent) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/html; charset=UTF-8' : 'application/json; charset=UTF-8',
      'content-length': Buffer.byteLength(text),
      'cf-ray': `${Math.random().toString(16).slice(2, 18)}-SIM`,
      ...headers,
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const log = { method, path: url.pathname, query: url.search, auth: 'none' as 'token' | 'key' | 'none', status: 0 };
    state.requests.push(log);
    // Demo mode runs for days; keep the log bounded (tests look at far fewer requests than this).
    if (state.requests.length > MAX_LOG) state.requests.splice(0, state.requests.length - MAX_LOG);
    let status = 500;
    try {
      const raw = await readBody(
        req,
        MAX_BODY,
        () => new CfError(413, [{ code: 6004, message: 'Request body too large' }]),
      );

      const f = failures.next();
      if (f) {
        if (f.kind === 'slow') {
          await failures.wait(f.delayMs ?? 2000);
        } else if (f.kind === '5xx') {
          const s = f.status ?? 500;
          status = s;
          if ([502, 503, 504].includes(s)) {
            // Cloudflare's edge answers these with an HTML page, not the API envelope.
            send(
              res,
              s,
              `<html><head><title>${s} Bad Gateway</title></head><body><h1>${s}</h1>cloudflare</body></html>`,
            );
          } else {
            send(res, s, failure(cfErrors.internal(s).errors));
          }
          return;
        } else if (f.kind === '429') {
          const e = cfErrors.rateLimited(f.retryAfter ?? 1);
          status = 429;
          send(res, 429, failure(e.errors), e.headers);
          return;
        } else if (f.kind === 'edge_block') {
          status = 403;
          send(
            res,
            403,
            '<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1></body></html>',
          );
          return;
        } else {
          throw cfErrors.authentication();
        }
      }

      if (!url.pathname.startsWith(`${BASE}/`)) throw cfErrors.noRoute(url.pathname, 404);
      const path = url.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
      const auth = authenticate(req);
      log.auth = auth.scheme;
      checkRateLimit(auth.account.id);

      let body: unknown;
      if (raw.trim() !== '') {
        try {
          body = JSON.parse(raw);
        } catch {
          if (path === '/graphql') body = raw;
          else throw cfErrors.malformedJson();
        }
      }
      // The GraphQL Analytics API answers GraphQL's own shape ({ data, errors }), not the v4 envelope.
      if (path === '/graphql' && method === 'POST') {
        const answer = answerGraphql(state, auth.account, body);
        status = answer.status;
        send(res, answer.status, JSON.stringify(answer.body), { 'content-type': 'application/json; charset=UTF-8' });
        return;
      }
      const found = match(method, path);
      if (found instanceof CfError) throw found;
      const query = new URLSearchParams(url.search);
      // Cloudflare's own document decides what a request may hold, before any handler looks at it.
      const ctx: Ctx = { method, path, query, body, account: auth.account, scheme: auth.scheme, params: found.params };
      const refused = refusalOf({ method, path, query, auth: auth.scheme, body }, recordTypeOf);
      // Where the simulator knows Cloudflare's own, more specific refusal (9021 for a TTL, 1007 for a setting), that
      // one is answered; the handler runs on a copy, so a refused request changes nothing either way.
      if (refused) throw dryRun(() => found.handler(ctx)) ?? refused;
      const envelope = found.handler(ctx);
      status = 200;
      log.status = status;
      for (const hook of hooks) hook(log);
      send(res, 200, envelope);
    } catch (err) {
      if (err instanceof CfError) {
        status = err.status;
        send(res, err.status, failure(err.errors), err.headers);
      } else {
        status = 500;
        send(res, 500, failure(cfErrors.internal(500).errors));
      }
    } finally {
      log.status = status;
    }
  };

  const server = createServer((req, res) => {
    if (opts.stateFile && req.method !== 'GET') res.on('finish', () => saveState(state, opts.stateFile!));
    void handle(req, res);
  });
  const { port, close } = await listenOnLoopback(server, opts.port);

  return {
    url: `http://127.0.0.1:${port}${BASE}`,
    usage: () => new Map([...usage].map(([k, v]) => [k, { ...v }])),
    port,
    state,
    addAccount(input) {
      return { accountId: addAccountTo(state, input).id };
    },
    addZone(accountId, name, zoneOpts) {
      const zone = addZoneTo(state, accountId, name, zoneOpts);
      return { zoneId: zone.id, nameServers: [...(state.accounts.get(accountId)?.nameServers ?? [])] };
    },
    addDnsRecord(zoneId, record) {
      const zone = state.zones.get(zoneId);
      if (!zone) throw new Error(`unknown zone ${zoneId}`);
      // What the API would refuse (CAA as content, …) is refused here too, so seeds and tests stay real.
      const path = `/zones/${zoneId}/dns_records`;
      const refused = refusalOf(
        { method: 'POST', path, query: new URLSearchParams(), auth: 'token', body: record },
        recordTypeOf,
      );
      if (refused) throw refused;
      return createRecord(zone, record).id;
    },
    setZonePlan(zoneId, plan) {
      const zone = state.zones.get(zoneId);
      if (!zone) throw new Error(`unknown zone ${zoneId}`);
      zone.plan = plan;
    },
    afterRequest(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    setZoneStatus(zoneId, status) {
      const zone = state.zones.get(zoneId);
      if (!zone) throw new Error(`unknown zone ${zoneId}`);
      zone.status = status;
      zone.modifiedOn = nowIso();
      if (status === 'active' && !zone.activatedOn) zone.activatedOn = zone.modifiedOn;
    },
    setZoneTraffic(zoneId, shape) {
      const zone = state.zones.get(zoneId);
      if (!zone) throw new Error(`unknown zone ${zoneId}`);
      zone.traffic = { ...shape };
      if (opts.stateFile) saveState(state, opts.stateFile);
    },
    fail(next) {
      failures.push(next);
    },
    clearFailures() {
      failures.clear();
    },
    purgeLog: state.purgeLog,
    async close() {
      failures.close();
      await close();
    },
  };
}
