import http, { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { readBody } from '../http-body.ts';
import { createFailureQueue, listenOnLoopback } from '../http-server.ts';

/**
 * A wire-level IndexNow endpoint on loopback (shared/docs/integrations/google-search.md, "IndexNow"): one URL by
 * GET /indexnow?url=&key=[&keyLocation=], many by POST /indexnow with {host, key, keyLocation?, urlList}. It
 * refuses what the protocol refuses (400, 403, 422, 405) and checks the key file on the site: through `fileLookup`
 * (a directory tree, such as the SSH test host's) or `resolveHost` (a loopback web server playing the host). A
 * host it cannot look at is answered 202, as the engines answer a key they have not validated yet.
 */

/** The protocol's key: 8–128 characters of a-z, A-Z, 0-9 and "-". */
export const INDEXNOW_KEY = /^[a-zA-Z0-9-]{8,128}$/;
/** URLs in one POST, at most. */
export const INDEXNOW_MAX_URLS = 10_000;

export interface IndexNowSimOptions {
  port?: number;
  /** The text the site serves at `/<path>` of a host (no leading slash), or undefined when it serves nothing there. */
  fileLookup?: (host: string, fileName: string) => string | undefined | Promise<string | undefined>;
  /**
   * The base URL (http(s)://127.0.0.1:port) of a web server playing the host, or undefined for a host that cannot
   * be reached now: the key file is fetched from there with the host's name in the Host header.
   */
  resolveHost?: (host: string) => string | undefined | Promise<string | undefined>;
  /** A larger body is answered 413. Default 16 MB (10,000 long URLs fit). */
  maxBodyBytes?: number;
}

export interface IndexNowFailure {
  /** `html`: an HTML page in place of the API's answer (status 200 unless given), as a wrong endpoint answers. */
  kind: '5xx' | '429' | 'slow' | 'html';
  count?: number;
  delayMs?: number;
  status?: number;
}

/** One submission as received, with the answer given (the key is public in the protocol: it is on the site). */
export interface IndexNowSubmission {
  at: string;
  method: string;
  host: string | null;
  key: string | null;
  keyLocation: string | null;
  urls: string[];
  status: number;
}

export interface IndexNowSim {
  /** The endpoint, http://127.0.0.1:<port>/indexnow */
  url: string;
  port: number;
  /** Every request to /indexnow with its answer, oldest first (the last 1,000). */
  submissions: IndexNowSubmission[];
  setFileLookup(fn: IndexNowSimOptions['fileLookup']): void;
  setResolveHost(fn: IndexNowSimOptions['resolveHost']): void;
  fail(f: IndexNowFailure): void;
  close(): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const KEY_FILE_MAX = 1024;
const KEY_FETCH_MS = 3000;

/** The key file as the host's web server serves it, or null when the server answers anything but 200. */
function fetchKeyFile(base: string, host: string, path: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const get = u.protocol === 'https:' ? https.get : http.get;
    const req = get(
      u,
      // The demo's sites are self-signed: the check is about the file, not the certificate.
      { headers: { host }, servername: host, rejectUnauthorized: false, timeout: KEY_FETCH_MS },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve(null);
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          if (text.length > KEY_FILE_MAX) {
            res.destroy();
            resolve(null);
          }
        });
        res.on('end', () => resolve(text));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function startIndexNowSim(opts: IndexNowSimOptions = {}): Promise<IndexNowSim> {
  let fileLookup = opts.fileLookup;
  let resolveHost = opts.resolveHost;
  const maxBody = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const failures = createFailureQueue<IndexNowFailure>();
  const submissions: IndexNowSubmission[] = [];

  /** 200 when the key file holds the key, 403 when it does not (or is missing), 202 when it cannot be read now. */
  async function checkKey(host: string, key: string, keyPath: string): Promise<200 | 202> {
    let body: string | null | undefined;
    if (fileLookup) {
      body = (await fileLookup(host, keyPath.replace(/^\/+/, ''))) ?? null;
    } else {
      const base = resolveHost ? await resolveHost(host) : undefined;
      if (!base) return 202;
      try {
        body = await fetchKeyFile(base, host, keyPath);
      } catch {
        // The site did not answer: the engines keep the URLs and check the key later.
        return 202;
      }
    }
    if (body === null || body.trim() !== key)
      throw new Refusal(403, 'Key not valid: the key file was not found or does not match');
    return 200;
  }

  /** Checks one submission; answers the status of a received one, throws a Refusal otherwise. */
  async function handle(host: string, key: string, keyLocation: string | null, urls: string[]) {
    if (!INDEXNOW_KEY.test(key)) throw new Refusal(422, 'Key not valid: 8 to 128 characters of a-z, A-Z, 0-9 and -');
    if (!/^[a-z0-9.-]+(?::\d{1,5})?$/i.test(host)) throw new Refusal(400, 'host is not a host name');
    if (!urls.length) throw new Refusal(400, 'urlList is empty');
    if (urls.length > INDEXNOW_MAX_URLS) throw new Refusal(400, `urlList holds more than ${INDEXNOW_MAX_URLS} URLs`);
    for (const raw of urls) {
      if (typeof raw !== 'string') throw new Refusal(400, 'urlList holds something other than a URL');
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        throw new Refusal(400, `Not a URL: ${raw.slice(0, 100)}`);
      }
      if (!/^https?:$/.test(u.protocol) || u.host.toLowerCase() !== host.toLowerCase())
        throw new Refusal(422, `URL not of the host ${host}: ${raw.slice(0, 100)}`);
    }
    let keyPath = `/${key}.txt`;
    if (keyLocation !== null) {
      let loc: URL;
      try {
        loc = new URL(keyLocation);
      } catch {
        throw new Refusal(422, 'keyLocation is not a URL');
      }
      if (loc.host.toLowerCase() !== host.toLowerCase()) throw new Refusal(422, 'keyLocation is not on the host');
      keyPath = loc.pathname;
    }
    return checkKey(host.toLowerCase(), key, keyPath);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      const entry: IndexNowSubmission = {
        at: new Date().toISOString(),
        method,
        host: null,
        key: null,
        keyLocation: null,
        urls: [],
        status: 0,
      };
      const answer = (status: number, message?: string) => {
        entry.status = status;
        if (url.pathname === '/indexnow') {
          submissions.push(entry);
          if (submissions.length > 1000) submissions.shift();
        }
        // The engines answer a received submission with an empty body; refusals say why in a line of text.
        if (message) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(message);
        else res.writeHead(status).end();
      };
      if (url.pathname !== '/indexnow') return answer(404, 'Not found');
      const failure = failures.next();
      if (failure?.kind === 'slow') await failures.wait(failure.delayMs ?? 2000);
      else if (failure?.kind === '5xx') return answer(failure.status ?? 503, 'Service unavailable');
      else if (failure?.kind === '429') {
        res.setHeader('retry-after', '60');
        return answer(429, 'Too many requests');
      } else if (failure?.kind === 'html') {
        entry.status = failure.status ?? 200;
        submissions.push(entry);
        return res
          .writeHead(entry.status, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!doctype html><html><body><h1>Welcome</h1><p>Sign in to continue.</p></body></html>');
      }
      try {
        if (method === 'GET') {
          const u = url.searchParams.get('url');
          const key = url.searchParams.get('key');
          if (!u || !key) throw new Refusal(400, 'url and key are required');
          let host: string;
          try {
            host = new URL(u).host;
          } catch {
            throw new Refusal(400, 'url is not a URL');
          }
          Object.assign(entry, { host, key, keyLocation: url.searchParams.get('keyLocation'), urls: [u] });
          return answer(await handle(host, key, entry.keyLocation, [u]));
        }
        if (method === 'POST') {
          const type = String(req.headers['content-type'] ?? '').toLowerCase();
          let text: string;
          try {
            text = await readBody(req, maxBody);
          } catch {
            return answer(413, 'Request body too large');
          }
          if (!type.startsWith('application/json')) throw new Refusal(400, 'Content-Type must be application/json');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new Refusal(400, 'The body is not JSON');
          }
          if (!isObject(body)) throw new Refusal(400, 'The body is not a JSON object');
          const { host, key, keyLocation, urlList } = body;
          if (typeof host !== 'string' || typeof key !== 'string' || !Array.isArray(urlList))
            throw new Refusal(400, 'host, key and urlList are required');
          if (keyLocation !== undefined && keyLocation !== null && typeof keyLocation !== 'string')
            throw new Refusal(422, 'keyLocation is not a URL');
          Object.assign(entry, {
            host,
            key,
            keyLocation: typeof keyLocation === 'string' ? keyLocation : null,
            urls: urlList.filter((x): x is string => typeof x === 'string'),
          });
          return answer(await handle(host, key, entry.keyLocation, urlList as string[]));
        }
        res.setHeader('allow', 'GET, POST');
        return answer(405, 'Method not allowed');
      } catch (err) {
        if (err instanceof Refusal) return answer(err.status, err.message);
        return answer(500, 'Internal error');
      }
    })();
  });
  const { port, close } = await listenOnLoopback(server, opts.port);
  return {
    url: `http://127.0.0.1:${port}/indexnow`,
    port,
    submissions,
    setFileLookup(fn) {
      fileLookup = fn;
    },
    setResolveHost(fn) {
      resolveHost = fn;
    },
    fail: (f) => failures.push(f),
    close: async () => {
      failures.close();
      await close();
    },
  };
}
