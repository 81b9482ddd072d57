import crypto from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { generateSelfSignedCert } from '../proxy/self-signed-cert.ts';
import { readBody } from '../http-body.ts';
import { createFailureQueue, listenOnLoopback, readStateFile, writeStateFile } from '../http-server.ts';

/**
 * A wire-level ISPmanager 6 simulator: one endpoint `/ispmgr`, functions chosen with `func`, answers in the
 * `out=json` form of the panel's XML document (`{"doc": …}`, scalars as `{"$": …}`), HTTP 200 even for errors,
 * which come as `doc.error`. Sign-in by `authinfo=user:pass` or a session from `func=auth`. Served over HTTPS
 * with a fresh self-signed certificate by default, like the panel's port 1500 (see docs/integrations/ispmanager.md).
 */

export interface IspManagerSimUser {
  username: string;
  password: string;
}

export interface IspManagerSimSite {
  name: string;
  owner: string;
  docroot: string;
  ipaddr: string;
  email: string;
  aliases: string;
  php: 'on' | 'off';
  phpVersion: string;
  secure: 'on' | 'off';
  active: 'on' | 'off';
}

export interface IspManagerFailure {
  kind: 'slow' | '5xx' | 'html';
  count?: number;
  delayMs?: number;
}

export interface IspManagerSimOptions {
  port?: number;
  /** HTTPS with a self-signed certificate (default), or plain HTTP. */
  tls?: boolean;
  users?: IspManagerSimUser[];
  sites?: (Partial<IspManagerSimSite> & { name: string; owner: string })[];
  /** Seconds a session lives without requests (ISPmanager: one hour). */
  sessionTtlSeconds?: number;
  /** Demo mode: keep the sites (and raw forms) in this JSON file, loaded at start and written after every change. */
  stateFile?: string;
}

export interface IspManagerRequestLog {
  func: string;
  method: string;
  authMode: 'authinfo' | 'session' | 'none';
}

export interface IspManagerSim {
  url: string;
  port: number;
  /** The PEM certificate the simulator serves (self-signed), when on HTTPS. */
  certificate: string | null;
  sites(): IspManagerSimSite[];
  addSite(site: Partial<IspManagerSimSite> & { name: string; owner: string }): void;
  /**
   * From now on `webdomain.edit` for this site answers this body as it is: a stand-in for a panel version
   * whose form the client cannot read.
   */
  setRawForm(name: string, body: string): void;
  requests: IspManagerRequestLog[];
  fail(next: IspManagerFailure): void;
  clearFailures(): void;
  /** Ends every session, as the panel does after an hour without requests. */
  expireSessions(): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;
const NAME_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

type Doc = Record<string, unknown>;
const s = (v: string) => ({ $: v });

const errorDoc = (type: string, object: string, msg: string): Doc => ({
  error: { $type: type, $object: object, $lang: 'en', msg: s(msg) },
});

export async function startIspManagerSim(opts: IspManagerSimOptions = {}): Promise<IspManagerSim> {
  const users = new Map<string, IspManagerSimUser>();
  for (const u of opts.users ?? []) users.set(u.username, u);
  const sites = new Map<string, IspManagerSimSite>();
  const rawForms = new Map<string, string>();
  const sessions = new Map<string, { username: string; lastUsed: number }>();
  const ttlMs = (opts.sessionTtlSeconds ?? 3600) * 1000;
  const failures = createFailureQueue<IspManagerFailure>();
  const requests: IspManagerRequestLog[] = [];

  const addSite = (site: Partial<IspManagerSimSite> & { name: string; owner: string }) => {
    const name = site.name.toLowerCase();
    sites.set(name, {
      name,
      owner: site.owner,
      docroot: site.docroot ?? `www/${name}`,
      ipaddr: site.ipaddr ?? '127.0.0.1',
      email: site.email ?? `webmaster@${name}`,
      aliases: site.aliases ?? `www.${name}`,
      php: site.php ?? 'on',
      phpVersion: site.phpVersion ?? 'isp-php82',
      secure: site.secure ?? 'off',
      active: site.active ?? 'on',
    });
  };
  for (const site of opts.sites ?? []) addSite(site);
  const saved = readStateFile<{ sites: IspManagerSimSite[]; rawForms: [string, string][] }>(opts.stateFile);
  if (saved) {
    for (const site of saved.sites) sites.set(site.name, site);
    for (const [k, v] of saved.rawForms) rawForms.set(k, v);
  }
  const save = () => {
    if (!opts.stateFile) return;
    writeStateFile(opts.stateFile, { sites: [...sites.values()], rawForms: [...rawForms] });
  };

  const row = (x: IspManagerSimSite) => ({
    id: s(String([...sites.keys()].indexOf(x.name) + 1)),
    name: s(x.name),
    owner: s(x.owner),
    docroot: s(x.docroot),
    ipaddr: s(x.ipaddr),
    active: s(x.active),
    php: s(x.php),
    php_version: s(x.phpVersion),
    secure: s(x.secure),
    database: s('Notused'),
  });
  const form = (x: IspManagerSimSite) => ({
    elid: s(x.name),
    name: s(x.name),
    aliases: s(x.aliases),
    home: s(x.docroot),
    owner: s(x.owner),
    email: s(x.email),
    ipaddrs: s(x.ipaddr),
    php: s(x.php),
    php_mode: s('php_mode_fcgi_nginxfpm'),
    php_fpm_version: s(x.phpVersion),
    secure: s(x.secure),
    ssl_port: s('443'),
    active: s(x.active),
  });

  const visible = (who: string, x: IspManagerSimSite) => who === 'root' || x.owner === who;

  /** Runs one function for the signed-in user; returns the document's children. */
  const run = (func: string, p: URLSearchParams, who: string): Doc | string => {
    const elids = (p.get('elid') ?? '')
      .split(', ')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean);
    switch (func) {
      case 'webdomain': {
        const rows = [...sites.values()].filter((x) => visible(who, x)).map(row);
        return rows.length ? { elem: rows } : {};
      }
      case 'webdomain.edit': {
        const elid = elids[0];
        if (elid) {
          const site = sites.get(elid);
          if (!site || !visible(who, site)) return errorDoc('missed', 'webdomain', `WWW domain '${elid}' not found`);
          if (p.get('sok')) {
            if (p.get('email')) site.email = p.get('email')!;
            if (p.get('aliases') !== null) site.aliases = p.get('aliases')!;
            save();
            return { ok: {} };
          }
          return rawForms.get(elid) ?? form(site);
        }
        if (!p.get('sok')) {
          // The empty form with its defaults.
          return { name: s(''), aliases: s(''), home: s(''), owner: s(who), email: s(''), php: s('on') };
        }
        const name = (p.get('name') ?? '').trim().toLowerCase();
        if (!name) return errorDoc('missed', 'name', "The field 'Domain name' is required");
        if (!NAME_RE.test(name)) return errorDoc('value', 'name', `The value of the field 'Domain name' is invalid`);
        if (sites.has(name)) return errorDoc('exists', 'webdomain', `WWW domain '${name}' already exists`);
        const owner = p.get('owner') || who;
        if (who !== 'root' && owner !== who) return errorDoc('access', 'owner', 'Insufficient privileges');
        addSite({
          name,
          owner,
          docroot: p.get('home') || `www/${name}`,
          email: p.get('email') || `webmaster@${name}`,
          aliases: p.get('aliases') ?? `www.${name}`,
          ipaddr: p.get('ipaddrs') || '127.0.0.1',
          php: p.get('php') === 'off' ? 'off' : 'on',
        });
        save();
        return { ok: {} };
      }
      case 'webdomain.delete':
      case 'webdomain.delete.confirm': {
        if (!elids.length) return errorDoc('missed', 'elid', 'No element selected');
        for (const e of elids) {
          const site = sites.get(e);
          if (!site || !visible(who, site)) return errorDoc('missed', 'webdomain', `WWW domain '${e}' not found`);
        }
        for (const e of elids) {
          sites.delete(e);
          rawForms.delete(e);
        }
        save();
        return { ok: {} };
      }
      default:
        return errorDoc('missed', 'func', `Function '${func}' not found`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const failure = failures.next();
    if (failure?.kind === 'slow') await failures.wait(failure.delayMs ?? 2000);
    if (failure?.kind === '5xx') {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
      return;
    }
    if (failure?.kind === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>ISPmanager is updating</body></html>');
      return;
    }
    if (url.pathname !== '/ispmgr') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
      return;
    }
    const p = new URLSearchParams(url.search);
    if (req.method === 'POST') for (const [k, v] of new URLSearchParams(await readBody(req, MAX_BODY))) p.set(k, v);
    const func = p.get('func') ?? '';
    const send = (doc: Doc | string) => {
      if (typeof doc === 'string') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
        return;
      }
      const body = { doc: { $lang: 'en', $func: func, $binary: '/ispmgr', ...doc } };
      if (p.get('out') === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      // Only out=json is modelled; anything else gets the XML declaration the panel would start with.
      else res.writeHead(200, { 'content-type': 'text/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><doc/>');
    };

    let who: string | undefined;
    let authMode: IspManagerRequestLog['authMode'] = 'none';
    if (func === 'auth') {
      const u = users.get(p.get('username') ?? '');
      requests.push({ func, method: req.method ?? 'GET', authMode });
      if (!u || u.password !== (p.get('password') ?? '')) {
        return send(errorDoc('auth', 'badpassword', 'Invalid username or password'));
      }
      const id = crypto.randomBytes(12).toString('hex');
      sessions.set(id, { username: u.username, lastUsed: Date.now() });
      return send({ auth: { $id: id, $: id } });
    }
    const authinfo = p.get('authinfo');
    const sessionId = p.get('auth');
    if (authinfo !== null) {
      authMode = 'authinfo';
      const colon = authinfo.indexOf(':');
      const u = users.get(authinfo.slice(0, Math.max(0, colon)));
      if (u && colon > 0 && u.password === authinfo.slice(colon + 1)) who = u.username;
    } else if (sessionId) {
      authMode = 'session';
      const session = sessions.get(sessionId);
      if (session && Date.now() - session.lastUsed <= ttlMs) {
        session.lastUsed = Date.now();
        who = session.username;
      } else sessions.delete(sessionId);
    }
    requests.push({ func, method: req.method ?? 'GET', authMode });
    if (requests.length > 10_000) requests.splice(0, requests.length - 10_000);
    if (!who) return send(errorDoc('auth', 'badpassword', 'Authorization failed'));
    return send(run(func, p, who));
  };

  const cert = opts.tls === false ? null : generateSelfSignedCert('ISPmanager simulator');
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end();
    });
  };
  const server = cert ? createHttpsServer({ key: cert.key, cert: cert.cert }, listener) : createHttpServer(listener);
  const { port, close } = await listenOnLoopback(server, opts.port);

  return {
    url: `${cert ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    certificate: cert?.cert ?? null,
    sites: () => [...sites.values()],
    addSite(site) {
      addSite(site);
      save();
    },
    setRawForm(name, body) {
      rawForms.set(name.toLowerCase(), body);
      save();
    },
    requests,
    fail(next) {
      failures.push(next);
    },
    clearFailures() {
      failures.clear();
    },
    expireSessions() {
      sessions.clear();
    },
    async close() {
      failures.close();
      await close();
    },
  };
}
