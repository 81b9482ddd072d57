import { createHash } from 'node:crypto';
import { fetch as undiciFetch } from 'undici';
import { providerFetch } from '../provider-calls.ts';
import { refuseUnsendable } from '../credentials.ts';
import { UpstreamError } from '../../http/errors.ts';

const PROVIDER = 'DirectAdmin';

export interface DirectAdminCredentials {
  /** The panel's base URL, e.g. https://host:2222. */
  baseUrl: string;
  username: string;
  password: string;
  /** With an admin's (or reseller's) credentials: the user to act as, sent as `admin|user`. */
  actAs?: string | null;
}

/** What DirectAdmin said when it refused: `error`/`text` title, `result`/`details` text, and the rest of its answer. */
export interface DirectAdminServiceResponse {
  error: string;
  result: string;
  extended: Record<string, string>;
}

/** A refusal or failure from DirectAdmin; `serviceResponse` is set when DirectAdmin itself answered with an error. */
export class DirectAdminError extends UpstreamError {
  constructor(
    message: string,
    opts: ConstructorParameters<typeof UpstreamError>[2] & { serviceResponse?: DirectAdminServiceResponse } = {},
  ) {
    super(PROVIDER, message, opts);
    this.serviceResponse = opts.serviceResponse;
  }
  readonly serviceResponse?: DirectAdminServiceResponse;
}

export interface DirectAdminDomainInfo {
  domain: string;
  username: string | null;
  active: boolean | null;
  suspended: boolean | null;
  defaultDomain: boolean | null;
  ssl: boolean | null;
  php: boolean | null;
  cgi: boolean | null;
  bandwidthLimit: string | null;
  quotaLimit: string | null;
  ips: string[];
}

export interface DirectAdminResult {
  /** DirectAdmin's title, e.g. "Domain Created". */
  text: string;
  /** Its longer explanation, as plain text. */
  details: string;
}

export interface DirectAdminClientOptions {
  /** Per call, covering connect, headers and body. Default 15 s. */
  timeoutMs?: number;
  /**
   * After DirectAdmin rejects a login, calls with the same credentials fail at once for this long (default 5 min),
   * so repeated clicks never feed its brute-force monitor. New credentials are not affected.
   */
  authFailureCooldownMs?: number;
  fetchImpl?: typeof undiciFetch;
  now?: () => number;
}

const MAX_ANSWER = 2 * 1024 * 1024;
const MAX_TEXT = 2000;
const USER_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Turns HTML entities back into characters (DirectAdmin writes `&#61;`, `&#39;`, … inside values). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** DirectAdmin's details carry `<br>` and bits of HTML: shown as plain text, one line per break, bounded. */
export function plainText(s: string): string {
  const text = decodeEntities(
    s
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<[^>]{0,200}>/g, '')
      .replace(/\r/g, ''),
  )
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n');
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * DirectAdmin's url-encoded answer as key → values. The official advice is followed: entities are decoded first,
 * then the string is parsed as a query string; values are decoded once more, since some builds escape inside them.
 */
export function parseUrlEncoded(body: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(decodeEntities(body.trim()))) {
    const list = out.get(k) ?? [];
    list.push(decodeEntities(v));
    out.set(k, list);
  }
  return out;
}

const isLoginPage = (html: string) =>
  /type\s*=\s*["']?password/i.test(html) || /CMD_LOGIN/.test(html) || /<title>[^<]*login/i.test(html);

const onOff = (v: unknown): boolean | null => {
  if (typeof v !== 'string') return null;
  const x = v.toLowerCase();
  return x === 'on' || x === 'yes' ? true : x === 'off' || x === 'no' ? false : null;
};
const str = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

function toDomainInfo(domain: string, f: Record<string, unknown>): DirectAdminDomainInfo {
  const ips = Array.isArray(f.ips)
    ? f.ips.filter((x): x is string => typeof x === 'string')
    : typeof f.ips === 'string'
      ? f.ips.split('|').filter(Boolean)
      : [];
  return {
    domain: str(f.domain) ?? domain,
    username: str(f.username),
    active: onOff(f.active),
    suspended: onOff(f.suspended),
    defaultDomain: onOff(f.defaultdomain),
    ssl: onOff(f.ssl),
    php: onOff(f.php),
    cgi: onOff(f.cgi),
    bandwidthLimit: str(f.bandwidth_limit),
    quotaLimit: str(f.quota_limit),
    ips: ips.slice(0, 50),
  };
}

function describeConnectionError(err: unknown): string {
  let e: unknown = err;
  let text = 'unknown error';
  for (let i = 0; i < 6 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    if (e.message && e.message !== 'fetch failed') {
      text = typeof code === 'string' && !e.message.includes(code) ? `${code} ${e.message}` : e.message;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}

type Answer = { kind: 'json'; value: unknown } | { kind: 'form'; value: Map<string, string[]> };

export type DirectAdminClient = ReturnType<typeof createDirectAdminClient>;

/**
 * DirectAdmin's legacy `CMD_API_*` commands with `json=yes` and HTTP Basic auth. Nothing is ever retried: a
 * command may have run before a failure was seen, and a repeated failed login feeds the brute-force monitor,
 * which blocks the console's address for everyone.
 */
export function createDirectAdminClient(opts: DirectAdminClientOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const cooldownMs = opts.authFailureCooldownMs ?? 5 * 60_000;
  const fetchImpl = providerFetch('directadmin', opts.fetchImpl ?? undiciFetch);
  const now = opts.now ?? Date.now;
  const rejectedLogins = new Map<string, number>();
  /** Failures that were an HTML page other than the login page (how some builds refuse a command). */
  const htmlPages = new WeakSet<DirectAdminError>();

  const loginOf = (c: DirectAdminCredentials) => (c.actAs ? `${c.username}|${c.actAs}` : c.username);
  const keyOf = (c: DirectAdminCredentials) =>
    createHash('sha256')
      .update(`${c.baseUrl}\0${loginOf(c)}\0${c.password}`)
      .digest('hex');

  const scrub = (message: string, c: DirectAdminCredentials) =>
    c.password.length >= 3 ? message.split(c.password).join('[redacted]') : message;

  const fail = (
    c: DirectAdminCredentials,
    message: string,
    o: ConstructorParameters<typeof DirectAdminError>[1] = {},
  ) => new DirectAdminError(scrub(`DirectAdmin: ${message}`, c), o);

  const authFailed = (c: DirectAdminCredentials, how: string) => {
    rejectedLogins.set(keyOf(c), now());
    return fail(
      c,
      `the login was rejected (${how}) — check the server's Direct Admin username and password. The console will not try these credentials again for ${Math.round(cooldownMs / 60_000)} min, so DirectAdmin's brute-force monitor does not block it.`,
      { code: 'upstream_auth_failed' },
    );
  };

  const refusal = (c: DirectAdminCredentials, sr: DirectAdminServiceResponse, status: number) =>
    fail(c, sr.result ? `${sr.error}: ${sr.result.replace(/\n/g, '; ')}` : sr.error, {
      code: 'upstream_refused',
      upstreamStatus: status,
      serviceResponse: sr,
    });

  /** One command; returns the parsed answer, or throws a DirectAdminError. */
  const command = async (
    c: DirectAdminCredentials,
    method: 'GET' | 'POST',
    name: string,
    params: Record<string, string> = {},
  ): Promise<Answer> => {
    if (!USER_RE.test(c.username) || (c.actAs && !USER_RE.test(c.actAs))) {
      throw fail(c, 'the username must be a DirectAdmin login, or admin|user to act as a user', {
        code: 'upstream_auth_missing',
      });
    }
    refuseUnsendable(PROVIDER, 'Direct Admin password', c.password, 'password');
    const rejectedAt = rejectedLogins.get(keyOf(c));
    if (rejectedAt !== undefined && now() - rejectedAt < cooldownMs) {
      const wait = Math.ceil((cooldownMs - (now() - rejectedAt)) / 1000);
      throw fail(
        c,
        `these credentials were rejected a moment ago; not trying them again for ${wait} s (DirectAdmin's brute-force monitor would block the console). Fix the server's Direct Admin username or password.`,
        { code: 'upstream_auth_failed' },
      );
    }
    const base = c.baseUrl.replace(/\/+$/, '');
    const query = new URLSearchParams({ json: 'yes' });
    const form = new URLSearchParams(params);
    if (method === 'GET') for (const [k, v] of form) query.set(k, v);
    const url = `${base}/${name}?${query.toString()}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${loginOf(c)}:${c.password}`, 'utf8').toString('base64')}`,
    };
    if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
    const signal = AbortSignal.timeout(timeoutMs);
    let status: number;
    let contentType: string;
    let text: string;
    try {
      const res = await fetchImpl(url, {
        method,
        headers,
        body: method === 'POST' ? form.toString() : undefined,
        signal,
        redirect: 'manual',
      });
      status = res.status;
      contentType = res.headers.get('content-type') ?? '';
      const length = Number(res.headers.get('content-length') ?? '0');
      if (length > MAX_ANSWER) {
        await res.body?.cancel();
        throw fail(c, `the answer is too large (${length} bytes)`, { upstreamStatus: status });
      }
      text = await res.text();
      if (text.length > MAX_ANSWER) throw fail(c, 'the answer is too large', { upstreamStatus: status });
    } catch (err) {
      if (err instanceof DirectAdminError) throw err;
      if (signal.aborted) throw fail(c, `timed out after ${timeoutMs} ms`, { timeout: true });
      throw fail(c, `could not connect (${describeConnectionError(err)})`, { code: 'upstream_unreachable' });
    }

    if (status === 401) throw authFailed(c, 'HTTP 401');
    if (status >= 300 && status < 400) {
      // A redirect from a CMD_API command is the panel sending an unauthenticated caller to its login page.
      throw authFailed(c, `HTTP ${status} redirect to the login page`);
    }
    if (/text\/html/i.test(contentType) || /^\s*<(!doctype|html)/i.test(text)) {
      if (status === 200 && isLoginPage(text)) throw authFailed(c, 'DirectAdmin answered with its login page');
      if (status === 403) {
        throw fail(
          c,
          'access refused (HTTP 403); the console may be blocked by its brute-force monitor, or these credentials may not be allowed this command',
          { upstreamStatus: status },
        );
      }
      const page = fail(
        c,
        `HTTP ${status} with an HTML page instead of an API answer (an unknown command, or a panel error)`,
        {
          upstreamStatus: status,
        },
      );
      htmlPages.add(page);
      throw page;
    }

    let answer: Answer;
    const trimmed = text.trim();
    if (/json/i.test(contentType) || trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        answer = { kind: 'json', value: JSON.parse(trimmed) as unknown };
      } catch {
        throw fail(c, `HTTP ${status} with an answer that is not valid JSON`, { upstreamStatus: status });
      }
    } else {
      answer = { kind: 'form', value: parseUrlEncoded(trimmed) };
    }

    // DirectAdmin reports a refusal with 200 and error=1 (or {"error": …}); JSON mode may add a 4xx/5xx status.
    const sr = serviceErrorOf(answer);
    if (sr) throw refusal(c, sr, status);
    if (status < 200 || status >= 300) throw fail(c, `HTTP ${status}`, { upstreamStatus: status });
    return answer;
  };

  /** The refusal inside an answer, if it is one. */
  function serviceErrorOf(a: Answer): DirectAdminServiceResponse | null {
    const extended: Record<string, string> = {};
    if (a.kind === 'json') {
      const v = a.value;
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
      const o = v as Record<string, unknown>;
      // The newer API's error body, sent with a 4xx/5xx status: {"type": "…", "message": "…"}.
      if (o.error === undefined && typeof o.type === 'string' && typeof o.message === 'string') {
        return { error: plainText(o.message), result: '', extended: { type: plainText(o.type) } };
      }
      if (o.error === undefined || o.error === 0 || o.error === '0' || o.error === false) return null;
      for (const [k, x] of Object.entries(o).slice(0, 20)) {
        if (k !== 'error' && k !== 'result' && (typeof x === 'string' || typeof x === 'number')) {
          extended[k] = plainText(String(x));
        }
      }
      const title = typeof o.error === 'string' && o.error !== '1' ? o.error : (str(o.text) ?? 'Error');
      return { error: plainText(title), result: plainText(str(o.result) ?? str(o.details) ?? ''), extended };
    }
    const first = (k: string) => a.value.get(k)?.[0];
    const flag = first('error');
    if (flag === undefined || flag === '0') return null;
    for (const [k, list] of [...a.value].slice(0, 20)) {
      if (k !== 'error' && k !== 'text' && k !== 'details') extended[k] = plainText(list[0] ?? '');
    }
    return { error: plainText(first('text') || 'Error'), result: plainText(first('details') ?? ''), extended };
  }

  const resultOf = (a: Answer, fallback: string): DirectAdminResult => {
    if (a.kind === 'json') {
      const o = (typeof a.value === 'object' && a.value !== null ? a.value : {}) as Record<string, unknown>;
      return { text: plainText(str(o.success) ?? fallback), details: plainText(str(o.result) ?? '') };
    }
    return {
      text: plainText(a.value.get('text')?.[0] ?? fallback),
      details: plainText(a.value.get('details')?.[0] ?? ''),
    };
  };

  const canonical = (domain: string) => domain.trim().toLowerCase();

  return {
    /**
     * Every user of the server (CMD_API_SHOW_ALL_USERS, admin level), or null when the login may not list them
     * (a user's login, or an admin acting as a user): DirectAdmin refuses the command then, with error=1 or, on
     * some builds, an HTML error page that is not its login page. Any other failure is thrown.
     */
    async listUsers(c: DirectAdminCredentials): Promise<string[] | null> {
      let a: Answer;
      try {
        a = await command(c, 'GET', 'CMD_API_SHOW_ALL_USERS');
      } catch (err) {
        const refused =
          err instanceof DirectAdminError &&
          (err.code === 'upstream_refused' ||
            (htmlPages.has(err) && (err.upstreamStatus === 200 || err.upstreamStatus === 404)));
        if (refused) return null;
        throw err;
      }
      const list = a.kind === 'json' ? (Array.isArray(a.value) ? a.value : null) : (a.value.get('list[]') ?? []);
      if (!list) throw fail(c, 'the list of users came in an unexpected form');
      return list.filter((x): x is string => typeof x === 'string' && USER_RE.test(x));
    },

    /** The user's domains (CMD_API_SHOW_DOMAINS), lower case. */
    async listDomains(c: DirectAdminCredentials): Promise<string[]> {
      const a = await command(c, 'GET', 'CMD_API_SHOW_DOMAINS');
      const list =
        a.kind === 'json'
          ? Array.isArray(a.value)
            ? a.value
            : typeof a.value === 'object' && a.value !== null && Array.isArray((a.value as { list?: unknown }).list)
              ? (a.value as { list: unknown[] }).list
              : null
          : (a.value.get('list[]') ?? []);
      if (!list) throw fail(c, 'the domain list came in an unexpected form');
      return list.filter((x): x is string => typeof x === 'string').map(canonical);
    },

    async hasDomain(c: DirectAdminCredentials, domain: string): Promise<boolean> {
      return (await this.listDomains(c)).includes(canonical(domain));
    },

    /** One domain's details (CMD_API_ADDITIONAL_DOMAINS), or null when the user has no such domain. */
    async getDomain(c: DirectAdminCredentials, domain: string): Promise<DirectAdminDomainInfo | null> {
      const name = canonical(domain);
      const a = await command(c, 'GET', 'CMD_API_ADDITIONAL_DOMAINS', { domain: name });
      if (a.kind === 'json') {
        const o = (typeof a.value === 'object' && a.value !== null ? a.value : {}) as Record<string, unknown>;
        const entry = o[name];
        if (typeof entry === 'object' && entry !== null) return toDomainInfo(name, entry as Record<string, unknown>);
        if (typeof entry === 'string') return toDomainInfo(name, Object.fromEntries(new URLSearchParams(entry)));
        return null;
      }
      const entry = a.value.get(name)?.[0];
      return entry === undefined ? null : toDomainInfo(name, Object.fromEntries(new URLSearchParams(entry)));
    },

    /** CMD_API_DOMAIN action=create, with SSL and PHP on and the package's limits. */
    async createDomain(c: DirectAdminCredentials, domain: string): Promise<DirectAdminResult> {
      const a = await command(c, 'POST', 'CMD_API_DOMAIN', {
        action: 'create',
        domain: canonical(domain),
        ubandwidth: 'unlimited',
        uquota: 'unlimited',
        ssl: 'ON',
        php: 'ON',
      });
      return resultOf(a, 'Domain Created');
    },

    /** CMD_API_DOMAIN select + delete of one domain, with its data. */
    async deleteDomain(c: DirectAdminCredentials, domain: string): Promise<DirectAdminResult> {
      const a = await command(c, 'POST', 'CMD_API_DOMAIN', {
        action: 'select',
        delete: 'yes',
        confirmed: 'yes',
        delete_data_aware: 'yes',
        delete_data: 'yes',
        select0: canonical(domain),
      });
      return resultOf(a, 'Domain Deletion Results');
    },
  };
}
