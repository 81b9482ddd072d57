import { createHash } from 'node:crypto';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { providerFetch } from '../provider-calls.ts';
import { refuseUnsendable } from '../credentials.ts';
import { UpstreamError } from '../../http/errors.ts';

const PROVIDER = 'ISPmanager';

export interface IspManagerCredentials {
  /** The panel's URL, e.g. https://host:1500 or https://host:1500/ispmgr. */
  baseUrl: string;
  username: string;
  password: string;
  /** Accept the panel's self-signed certificate (only when the server record says so). */
  acceptSelfSigned: boolean;
}

/** A row of the web-domain list (`func=webdomain`). */
export interface IspSiteRow {
  name: string;
  owner: string | null;
  docroot: string | null;
  ipaddr: string | null;
  active: string | null;
  php: string | null;
  phpVersion: string | null;
  secure: string | null;
}

/** One web domain's form (`func=webdomain.edit&elid=`): the parsed fields, or null with the raw answer. */
export interface IspSiteForm {
  fields: Record<string, string> | null;
  raw: string;
}

export interface IspManagerClientOptions {
  /** Per call. Default 15 s. */
  timeoutMs?: number;
  /** authinfo on every call (default), or a session from func=auth reused until the panel ends it. */
  authMode?: 'authinfo' | 'session';
  fetchImpl?: typeof undiciFetch;
}

const MAX_ANSWER = 4 * 1024 * 1024;
const MAX_RAW = 20_000;
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The ISPmanager error from a `doc.error` envelope (which arrives with HTTP 200). */
export class IspManagerError extends UpstreamError {
  constructor(
    message: string,
    opts: ConstructorParameters<typeof UpstreamError>[2] & { errorType?: string; errorObject?: string } = {},
  ) {
    super(PROVIDER, message, opts);
    this.errorType = opts.errorType;
    this.errorObject = opts.errorObject;
  }
  readonly errorType?: string;
  readonly errorObject?: string;
}

type Doc = Record<string, unknown>;

/** `{"$": "x"}` → "x"; a bare string stays; anything else is null. */
const scalar = (v: unknown): string | null => {
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const t = (v as { $?: unknown }).$;
    return typeof t === 'string' || typeof t === 'number' ? String(t) : null;
  }
  return null;
};

function errorChain(err: unknown): { code?: string; message: string }[] {
  const out: { code?: string; message: string }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    out.push({ code: typeof code === 'string' ? code : undefined, message: e.message });
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

export type IspManagerClient = ReturnType<typeof createIspManagerClient>;

/**
 * ISPmanager's function API with `out=json`. Credentials travel in the POST body, never in a URL. Failures are
 * read from `doc.error`, whatever the HTTP status; nothing is retried except one new sign-in when a reused
 * session has expired.
 */
export function createIspManagerClient(opts: IspManagerClientOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const authMode = opts.authMode ?? 'authinfo';
  const fetchImpl = providerFetch('ispmanager', opts.fetchImpl ?? undiciFetch);
  const sessions = new Map<string, string>();
  // One agent for panels whose record accepts a self-signed certificate; every other call verifies as usual.
  let insecureAgent: Dispatcher | undefined;
  const dispatcherFor = (c: IspManagerCredentials) =>
    c.acceptSelfSigned ? (insecureAgent ??= new Agent({ connect: { rejectUnauthorized: false } })) : undefined;

  const endpoint = (c: IspManagerCredentials) => {
    const base = c.baseUrl.replace(/\/+$/, '');
    return /\/ispmgr$/.test(base) ? base : `${base}/ispmgr`;
  };
  const keyOf = (c: IspManagerCredentials) =>
    createHash('sha256')
      .update(`${endpoint(c)}\0${c.username}\0${c.password}`)
      .digest('hex');
  const scrub = (m: string, c: IspManagerCredentials) =>
    c.password.length >= 3 ? m.split(c.password).join('[redacted]') : m;
  const fail = (c: IspManagerCredentials, message: string, o: ConstructorParameters<typeof IspManagerError>[1] = {}) =>
    new IspManagerError(scrub(`ISPmanager: ${message}`, c), o);

  /** One HTTP exchange; returns the answer's text. */
  const post = async (c: IspManagerCredentials, params: URLSearchParams): Promise<string> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetchImpl(endpoint(c), {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: params.toString(),
        signal,
        redirect: 'manual',
        dispatcher: dispatcherFor(c),
      });
      const length = Number(res.headers.get('content-length') ?? '0');
      if (length > MAX_ANSWER) {
        await res.body?.cancel();
        throw fail(c, `the answer is too large (${length} bytes)`, { upstreamStatus: res.status });
      }
      const text = await res.text();
      if (res.status < 200 || res.status >= 300) {
        throw fail(c, `HTTP ${res.status} from the panel`, { upstreamStatus: res.status });
      }
      if (text.length > MAX_ANSWER) throw fail(c, 'the answer is too large', { upstreamStatus: res.status });
      return text;
    } catch (err) {
      if (err instanceof IspManagerError) throw err;
      if (signal.aborted) throw fail(c, `timed out after ${timeoutMs} ms`, { timeout: true });
      const chain = errorChain(err);
      if (chain.some((e) => e.code && TLS_CODES.has(e.code))) {
        throw fail(
          c,
          "the panel's TLS certificate is not trusted (self-signed or invalid). If this server's panel uses a self-signed certificate, tick Accept self-signed certificate on the server.",
          { code: 'upstream_tls' },
        );
      }
      const inner = [...chain].reverse().find((e) => e.message && e.message !== 'fetch failed');
      const what = inner
        ? inner.code && !inner.message.includes(inner.code)
          ? `${inner.code} ${inner.message}`
          : inner.message
        : 'unknown error';
      throw fail(c, `could not connect (${what.replace(/\/\/[^/@\s]*@/g, '//')})`, { code: 'upstream_unreachable' });
    }
  };

  /** The `doc` of a JSON answer, or a clear error for anything else (an HTML page, XML, garbage). */
  const docOf = (c: IspManagerCredentials, text: string): Doc => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const what = /^\s*</.test(text) ? 'an HTML or XML page' : 'an answer that is not JSON';
      throw fail(c, `the panel sent ${what} instead of its JSON document`);
    }
    const doc = (body as { doc?: unknown } | null)?.doc;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw fail(c, 'the answer has no "doc" document');
    }
    return doc as Doc;
  };

  const errorOf = (c: IspManagerCredentials, doc: Doc): IspManagerError | null => {
    const e = doc.error;
    if (e === undefined) return null;
    const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
    const type = scalar(o.$type) ?? (typeof o.$type === 'string' ? o.$type : undefined) ?? 'error';
    const object = typeof o.$object === 'string' ? o.$object : undefined;
    const msg = scalar(o.msg) ?? scalar(e) ?? 'unknown error';
    if (type === 'auth') {
      return fail(c, `authorization failed (${msg}) — check the server's ISP Manager username and password`, {
        code: 'upstream_auth_failed',
        errorType: type,
        errorObject: object,
      });
    }
    return fail(c, msg.slice(0, 500), { code: 'upstream_refused', errorType: type, errorObject: object });
  };

  const signIn = async (c: IspManagerCredentials): Promise<string> => {
    const doc = docOf(
      c,
      await post(c, new URLSearchParams({ func: 'auth', out: 'json', username: c.username, password: c.password })),
    );
    const err = errorOf(c, doc);
    if (err) throw err;
    const auth = doc.auth as Record<string, unknown> | undefined;
    const id = (typeof auth?.$id === 'string' ? auth.$id : null) ?? scalar(auth);
    if (!id || !/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw fail(c, 'the sign-in answer carries no session id');
    return id;
  };

  /** Calls one function; returns the raw text and its `doc`, or throws on `doc.error`. */
  const call = async (
    c: IspManagerCredentials,
    func: string,
    params: Record<string, string> = {},
  ): Promise<{ doc: Doc; raw: string }> => {
    if (!c.username || /[\0\r\n]/.test(c.username)) throw fail(c, 'the server has no usable ISP Manager username');
    refuseUnsendable(PROVIDER, 'ISP Manager username', c.username, 'user');
    refuseUnsendable(PROVIDER, 'ISP Manager password', c.password, 'password');
    const run = async (auth: Record<string, string>) => {
      const raw = await post(c, new URLSearchParams({ ...params, func, out: 'json', ...auth }));
      return { raw, doc: docOf(c, raw) };
    };
    if (authMode === 'authinfo') {
      const r = await run({ authinfo: `${c.username}:${c.password}` });
      const err = errorOf(c, r.doc);
      if (err) throw err;
      return r;
    }
    const key = keyOf(c);
    const cached = sessions.get(key);
    const session = cached ?? (await signIn(c));
    sessions.set(key, session);
    let r = await run({ auth: session });
    let err = errorOf(c, r.doc);
    if (err?.errorType === 'auth' && cached) {
      // The panel ends sessions after an hour without requests: sign in once more.
      sessions.delete(key);
      const fresh = await signIn(c);
      sessions.set(key, fresh);
      r = await run({ auth: fresh });
      err = errorOf(c, r.doc);
    }
    if (err) {
      if (err.errorType === 'auth') sessions.delete(key);
      throw err;
    }
    return r;
  };

  const canonical = (name: string) => name.trim().toLowerCase();

  const rowOf = (e: unknown): IspSiteRow | null => {
    if (typeof e !== 'object' || e === null) return null;
    const o = e as Record<string, unknown>;
    const name = scalar(o.name);
    if (!name) return null;
    return {
      name: canonical(name),
      owner: scalar(o.owner),
      docroot: scalar(o.docroot),
      ipaddr: scalar(o.ipaddr),
      active: scalar(o.active),
      php: scalar(o.php),
      phpVersion: scalar(o.php_version),
      secure: scalar(o.secure),
    };
  };

  return {
    /** Every web domain the user sees (`func=webdomain`); an absent `elem` is an empty list. */
    async listSites(c: IspManagerCredentials): Promise<IspSiteRow[]> {
      const { doc } = await call(c, 'webdomain');
      const elem = doc.elem;
      const list = elem === undefined ? [] : Array.isArray(elem) ? elem : [elem];
      return list
        .slice(0, 100_000)
        .map(rowOf)
        .filter((r): r is IspSiteRow => r !== null);
    },

    async findSite(c: IspManagerCredentials, name: string): Promise<IspSiteRow | null> {
      const wanted = canonical(name);
      return (await this.listSites(c)).find((r) => r.name === wanted) ?? null;
    },

    /** The web domain's form; `fields` is null when the answer cannot be read as one (its raw text is kept). */
    async getSiteForm(c: IspManagerCredentials, name: string): Promise<IspSiteForm> {
      const n = canonical(name);
      const { doc, raw } = await call(c, 'webdomain.edit', { elid: n, elname: n });
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(doc)) {
        if (k.startsWith('$')) continue;
        const t = scalar(v);
        if (t !== null) fields[k] = t.slice(0, 2000);
      }
      const readable = typeof fields.name === 'string' && canonical(fields.name) === n;
      return { fields: readable ? fields : null, raw: raw.slice(0, MAX_RAW) };
    },

    /** `webdomain.edit` with `sok=ok` and no elid: creates the web domain. */
    async createSite(
      c: IspManagerCredentials,
      site: { name: string; owner?: string | null; email?: string | null },
    ): Promise<void> {
      const n = canonical(site.name);
      const params: Record<string, string> = {
        sok: 'ok',
        name: n,
        aliases: `www.${n}`,
        email: site.email || `webmaster@${n}`,
      };
      if (site.owner) params.owner = site.owner;
      const { doc } = await call(c, 'webdomain.edit', params);
      if (doc.ok === undefined) throw fail(c, 'the panel did not confirm the new site (no "ok" in its answer)');
    },

    /** `webdomain.delete` of one web domain (its files are kept, as the panel's default does). */
    async deleteSite(c: IspManagerCredentials, name: string): Promise<void> {
      const n = canonical(name);
      const { doc } = await call(c, 'webdomain.delete', { elid: n, remove_directory: 'off' });
      if (doc.ok === undefined) throw fail(c, 'the panel did not confirm the deletion');
    },

    /** Forgets the sessions (e.g. when the server record's credentials change). */
    forgetSessions() {
      sessions.clear();
    },
  };
}
