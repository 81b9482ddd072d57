import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from '../http-body.ts';
import { createFailureQueue, listenOnLoopback, readStateFile, writeStateFile } from '../http-server.ts';

/**
 * A wire-level DirectAdmin simulator: the legacy `CMD_API_*` commands a client needs for one user's domains
 * (SHOW_DOMAINS, DOMAIN create/select-delete, ADDITIONAL_DOMAINS) and the admin's list of users
 * (SHOW_ALL_USERS, admin level only), over HTTP Basic with the `admin|user` login-as form. Answers are url-encoded text by default and JSON with `json=yes`, with HTTP 200 for
 * logical errors, as DirectAdmin does (see docs/integrations/directadmin.md); `jsonErrors` makes JSON refusals
 * come with a non-2xx status, as newer builds may send them.
 */

export interface DirectAdminSimUser {
  username: string;
  password: string;
  /** Admins (and resellers) may act as any user with `admin|user`. */
  level?: 'admin' | 'user';
  domains?: string[];
  /** The package's domain limit; creating past it is refused. Default unlimited. */
  domainLimit?: number;
}

export interface DirectAdminFailure {
  kind: 'slow' | '5xx' | 'html_error';
  count?: number;
  /** For 'slow': how long each answer is held back (default 2000 ms). */
  delayMs?: number;
}

export interface DirectAdminSimOptions {
  port?: number;
  users?: DirectAdminSimUser[];
  /** How bad credentials are answered: older builds send their HTML login page with 200, newer ones 401. */
  badAuth?: 'html' | '401';
  /** Failed logins from one address before the brute-force monitor blocks it (default 10). */
  bruteForceLimit?: number;
  /** An older build that ignores `json=yes` and always answers url-encoded text. */
  legacyOnly?: boolean;
  /** Demo mode: keep the users' domains in this JSON file, loaded at start and written after every change. */
  stateFile?: string;
  /**
   * How JSON-mode refusals are answered. Default: HTTP 200 with `{"error": …, "result": …}` (the legacy API).
   * `status` sends them with that HTTP status instead; `shape: 'typed'` sends the newer API's
   * `{"type": …, "message": …}` body.
   */
  jsonErrors?: { status?: number; shape?: 'legacy' | 'typed' };
}

export interface DirectAdminSimDomain {
  name: string;
  bandwidthLimit: string;
  quotaLimit: string;
  ssl: 'ON' | 'OFF';
  cgi: 'ON' | 'OFF';
  php: 'ON' | 'OFF';
  suspended: 'yes' | 'no';
}

export interface DirectAdminRequestLog {
  method: string;
  command: string;
  /** The Basic username as sent (`admin|user` when impersonating). */
  login: string | null;
  authorized: boolean;
}

export interface DirectAdminSim {
  url: string;
  port: number;
  addUser(user: DirectAdminSimUser): void;
  /** The user's domains, in creation order. */
  domainsOf(username: string): DirectAdminSimDomain[];
  addDomain(username: string, domain: string): void;
  /** Counted failed logins (what DirectAdmin's brute-force monitor sees). */
  failedLogins(): number;
  requests: DirectAdminRequestLog[];
  fail(next: DirectAdminFailure): void;
  clearFailures(): void;
  /** Unblocks every address and resets the failed-login count. */
  resetBruteForce(): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;
const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export const DIRECTADMIN_LOGIN_PAGE =
  '<!DOCTYPE html><html><head><title>DirectAdmin Login</title></head><body>' +
  '<form action="/CMD_LOGIN" method="post"><input name="username"><input type="password" name="password">' +
  '<input type="submit" value="Login"></form></body></html>';

interface UserState {
  username: string;
  password: string;
  level: 'admin' | 'user';
  domainLimit: number;
  domains: Map<string, DirectAdminSimDomain>;
}

const newDomain = (name: string): DirectAdminSimDomain => ({
  name,
  bandwidthLimit: 'unlimited',
  quotaLimit: 'unlimited',
  ssl: 'ON',
  cgi: 'ON',
  php: 'ON',
  suspended: 'no',
});

/** DirectAdmin's url-encoded form: `key=value&…`, values percent-encoded. */
const urlEncoded = (pairs: [string, string][]) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** HTML-escapes what DirectAdmin escapes inside `details` (it writes entities there). */
const entities = (s: string) => s.replace(/'/g, '&#39;').replace(/"/g, '&quot;');

export async function startDirectAdminSim(opts: DirectAdminSimOptions = {}): Promise<DirectAdminSim> {
  const users = new Map<string, UserState>();
  const badAuth = opts.badAuth ?? 'html';
  const bruteForceLimit = opts.bruteForceLimit ?? 10;
  const failuresByIp = new Map<string, number>();
  let failedLogins = 0;
  const failures = createFailureQueue<DirectAdminFailure>();
  const requests: DirectAdminRequestLog[] = [];

  const addUser = (u: DirectAdminSimUser) => {
    const state: UserState = {
      username: u.username,
      password: u.password,
      level: u.level ?? 'user',
      domainLimit: u.domainLimit ?? Number.POSITIVE_INFINITY,
      domains: new Map(),
    };
    for (const d of u.domains ?? []) state.domains.set(d.toLowerCase(), newDomain(d.toLowerCase()));
    users.set(u.username, state);
  };
  for (const u of opts.users ?? []) addUser(u);
  const saved = readStateFile<Record<string, DirectAdminSimDomain[]>>(opts.stateFile);
  if (saved) {
    for (const [username, domains] of Object.entries(saved)) {
      const u = users.get(username);
      if (u) u.domains = new Map(domains.map((d) => [d.name, d]));
    }
  }
  const save = () => {
    if (!opts.stateFile) return;
    const out: Record<string, DirectAdminSimDomain[]> = {};
    for (const u of users.values()) out[u.username] = [...u.domains.values()];
    writeStateFile(opts.stateFile, out);
  };

  /** The user the call acts for, or null for bad credentials. */
  const authenticate = (
    req: IncomingMessage,
  ): { user: UserState; login: string; asAdmin: boolean } | { error: string; login: string | null } => {
    const header = req.headers.authorization ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
    if (!m) return { error: 'no credentials', login: null };
    const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { error: 'bad header', login: null };
    const login = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const [who = '', actAs] = login.split('|', 2);
    const principal = users.get(who);
    if (!principal || principal.password !== password) return { error: 'bad password', login };
    if (actAs === undefined) return { user: principal, login, asAdmin: principal.level === 'admin' };
    const target = users.get(actAs);
    // Login-as works only for an admin acting as an existing user.
    if (principal.level !== 'admin' || !target) return { error: 'login-as refused', login };
    // Acting as a user is that user's level: admin-level commands are refused then.
    return { user: target, login, asAdmin: false };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const command = url.pathname.replace(/^\/+/, '');
    const ip = req.socket.remoteAddress ?? '?';
    const failure = failures.next();
    if (failure?.kind === 'slow') await failures.wait(failure.delayMs ?? 2000);
    if (failure?.kind === '5xx') {
      res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>Internal Server Error</body></html>');
      return;
    }
    if (failure?.kind === 'html_error') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>An error occurred</body></html>');
      return;
    }
    if ((failuresByIp.get(ip) ?? 0) >= bruteForceLimit) {
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Your IP is blacklisted</body></html>');
      return;
    }
    const auth = authenticate(req);
    requests.push({ method: req.method ?? 'GET', command, login: auth.login, authorized: 'user' in auth });
    if (requests.length > 10_000) requests.splice(0, requests.length - 10_000);
    if (!('user' in auth)) {
      if (auth.login !== null) {
        failedLogins += 1;
        failuresByIp.set(ip, (failuresByIp.get(ip) ?? 0) + 1);
      }
      if (badAuth === '401') {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="DirectAdmin"' });
        res.end('error=1&text=Unauthorized&details=');
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DIRECTADMIN_LOGIN_PAGE);
      }
      return;
    }
    const user = auth.user;
    const raw = req.method === 'POST' ? await readBody(req, MAX_BODY) : '';
    const form = new URLSearchParams(url.search);
    if (raw) {
      const isJson = (req.headers['content-type'] ?? '').includes('json');
      if (isJson) {
        try {
          const obj = JSON.parse(raw) as Record<string, unknown>;
          for (const [k, v] of Object.entries(obj)) form.set(k, String(v));
        } catch {
          // Treated as an empty form, as DirectAdmin ignores what it cannot read.
        }
      } else {
        for (const [k, v] of new URLSearchParams(raw)) form.set(k, v);
      }
    }
    const json = form.get('json') === 'yes' && !opts.legacyOnly;

    const sendResult = (ok: boolean, text: string, details: string) => {
      if (json) {
        const typed = !ok && opts.jsonErrors?.shape === 'typed';
        const type = text.toUpperCase().replace(/[^A-Z]+/g, '_');
        res.writeHead(ok ? 200 : (opts.jsonErrors?.status ?? 200), { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            ok
              ? { success: text, result: details }
              : typed
                ? { type, message: `${text}: ${details}` }
                : { error: text, result: details },
          ),
        );
      } else {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(
          urlEncoded([
            ['error', ok ? '0' : '1'],
            ['text', text],
            ['details', entities(details)],
          ]),
        );
      }
    };

    switch (command) {
      case 'CMD_API_SHOW_ALL_USERS': {
        // Admin level: a user's login (or an admin acting as a user) may not list the server's users.
        if (!auth.asAdmin) {
          return sendResult(false, 'You cannot execute that command', 'The request requires an admin login');
        }
        const list = [...users.keys()];
        if (json) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(urlEncoded(list.map((u) => ['list[]', u])));
        return;
      }
      case 'CMD_API_SHOW_DOMAINS': {
        const list = [...user.domains.keys()];
        if (json) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(urlEncoded(list.map((d) => ['list[]', d])));
        return;
      }
      case 'CMD_API_ADDITIONAL_DOMAINS': {
        const only = form.get('domain')?.toLowerCase();
        const entries = [...user.domains.values()].filter((d) => !only || d.name === only);
        const fields = (d: DirectAdminSimDomain): Record<string, string | string[]> => ({
          active: d.suspended === 'yes' ? 'no' : 'yes',
          bandwidth: '0',
          bandwidth_limit: d.bandwidthLimit,
          cgi: d.cgi,
          defaultdomain: [...user.domains.keys()][0] === d.name ? 'yes' : 'no',
          domain: d.name,
          ips: ['127.0.0.1'],
          open_basedir: 'ON',
          php: d.php,
          quota: '0',
          quota_limit: d.quotaLimit,
          safemode: 'OFF',
          ssl: d.ssl,
          subdomain: '0',
          suspended: d.suspended,
          username: user.username,
        });
        if (json) {
          const out: Record<string, unknown> = {};
          for (const d of entries) out[d.name] = fields(d);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        } else {
          const pairs: [string, string][] = entries.map((d) => [
            d.name,
            urlEncoded(Object.entries(fields(d)).map(([k, v]) => [k, Array.isArray(v) ? v.join('|') : v])),
          ]);
          res.writeHead(200, { 'content-type': 'text/plain' }).end(urlEncoded(pairs));
        }
        return;
      }
      case 'CMD_API_DOMAIN': {
        const action = form.get('action');
        if (action === 'create') {
          const name = (form.get('domain') ?? '').trim().toLowerCase();
          if (!DOMAIN_RE.test(name))
            return sendResult(false, 'Cannot create domain', `'${name}' is not a valid domain`);
          for (const u of users.values()) {
            if (u.domains.has(name)) {
              return sendResult(false, 'Cannot create domain', 'That domain already exists on this server.');
            }
          }
          if (user.domains.size >= user.domainLimit) {
            return sendResult(false, 'Cannot create domain', 'You have reached your domain limit');
          }
          const d = newDomain(name);
          d.ssl = form.get('ssl') === 'ON' ? 'ON' : 'OFF';
          d.cgi = form.get('cgi') === 'ON' ? 'ON' : 'OFF';
          d.php = form.get('php') === 'ON' ? 'ON' : 'OFF';
          d.bandwidthLimit =
            form.get('ubandwidth') === 'unlimited' ? 'unlimited' : (form.get('bandwidth') ?? 'unlimited');
          d.quotaLimit = form.get('uquota') === 'unlimited' ? 'unlimited' : (form.get('quota') ?? 'unlimited');
          user.domains.set(name, d);
          save();
          return sendResult(true, 'Domain Created', `Domain ${name} created<br>`);
        }
        if ((action === 'select' || action === null) && form.get('delete') && form.get('confirmed')) {
          const names: string[] = [];
          for (let i = 0; i < 1000; i++) {
            const n = form.get(`select${i}`);
            if (n === null) break;
            names.push(n.trim().toLowerCase());
          }
          if (!names.length) return sendResult(false, 'Error deleting domains', 'No domains were selected');
          const missing = names.filter((n) => !user.domains.has(n));
          if (missing.length) {
            return sendResult(false, 'Error deleting domains', `You do not own the domain ${missing.join(', ')}`);
          }
          for (const n of names) user.domains.delete(n);
          save();
          return sendResult(true, 'Domain Deletion Results', names.map((n) => `${n} removed`).join('<br>'));
        }
        return sendResult(false, 'Invalid action', `Unknown action '${action ?? ''}'`);
      }
      default:
        // An unknown command: DirectAdmin answers with an HTML page.
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end();
    });
  });
  const { port, close } = await listenOnLoopback(server, opts.port);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    addUser,
    domainsOf: (username) => [...(users.get(username)?.domains.values() ?? [])],
    addDomain(username, domain) {
      const u = users.get(username);
      if (!u) throw new Error(`no such user ${username}`);
      u.domains.set(domain.toLowerCase(), newDomain(domain.toLowerCase()));
      save();
    },
    failedLogins: () => failedLogins,
    requests,
    fail(next) {
      failures.push(next);
    },
    clearFailures() {
      failures.clear();
    },
    resetBruteForce() {
      failuresByIp.clear();
      failedLogins = 0;
    },
    async close() {
      failures.close();
      await close();
    },
  };
}
