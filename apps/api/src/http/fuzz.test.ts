import http from 'node:http';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';

/**
 * A bounded fuzz of every registered route (enumerated like the permission test, so routes added later are
 * covered without touching this file): malformed params, queries and bodies — wrong types, huge and
 * NUL-bearing strings, lone surrogates, deep JSON, bad and upper-case ids, prototype keys — sent as an
 * administrator. No answer may be a 5xx, and none may take more than 5 s.
 *
 * No request may leave the machine: the providers' base URLs point at a closed loopback port, and the seed
 * creates nothing that names a provider (no cloud, no proxy, no server), so no route reaches one.
 */
const REQUESTS = 5_000;
/** Sent over real sockets by keep-alive clients, counting connection resets (issue 26: 186 in an outside run). */
const SOCKET_REQUESTS = 600;
const SLOW_MS = 5_000;
const SEED = 20261123;
const CLOSED = 'http://127.0.0.1:9';

/** Routes left out, and why. */
const SKIP = new Set([
  // Would end the administrator's session, so every later request would only test the 401.
  'POST /auth/logout',
]);

let t: TestApp;
let admin: string;
const seededIds: string[] = [];
beforeAll(async () => {
  t = await createTestApp({
    CLOUDFLARE_API_URL: `${CLOSED}/client/v4`,
    PROXY_CHECK_URL: `${CLOSED}/cdn-cgi/trace`,
    CLOUDFLARE_TIMEOUT_SECONDS: '1',
    // Jobs are queued as in production (a valid request to start one must not meet a stopped engine), never run.
    JOB_WORKERS: '0',
  });
  await t.c.startJobs({ periodic: false });
  admin = await t.tokenFor(['cnv'], { username: 'fuzz-admin' });
  const create = async (resource: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url: `/api/${resource}`, headers: { authorization: admin }, payload });
    expect(res.statusCode, res.body).toBe(201);
    seededIds.push(res.json().data._id);
    return res.json().data._id as string;
  };
  // Real ids, so that the fuzz reaches past the 404s into the services.
  await create('regions', { name: 'Fuzz region' });
  const brand = await create('brands', { name: 'Fuzz brand' });
  await create('roles', { name: 'Fuzz role', rules: ['cnv:brands'] });
  await create('firewall-rules', {
    name: 'Fuzz rule',
    action: 'block',
    expression: '(ip.src eq 1.2.3.4)',
    defaultPriority: 1,
  });
  await create('domain-registrators-contacts', { name: 'Fuzz contact' });
  await create('domains', { domainName: 'fuzz.example', status: 'active', brandId: brand });
}, 600_000);
afterAll(async () => t?.close());

// ---- the generators ----

const nastyStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '%00',
  '\uD800',
  'x\uDFFFy',
  '\uFEFF',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '../../../../etc/passwd',
  '/etc/passwd',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '9999999999999999999999',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '00000000-0000-0000-0000-000000000000',
  '00000000-0000-4000-8000-00000000000G',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'xn--',
  'xn--mnchen-3ya.de',
  'bücher.example',
  '=HYPERLINK("x")',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  '\r\nX-Injected: 1',
  'a'.repeat(300),
  'é'.repeat(5_000),
  'A'.repeat(70_000),
];

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`) },
);

const anId = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constant(null).map(() => seededIds[0] ?? ''),
  fc.nat().map((n) => seededIds[n % Math.max(1, seededIds.length)] ?? ''),
  fc.nat().map((n) => (seededIds[n % Math.max(1, seededIds.length)] ?? '').toUpperCase()),
  nastyString,
);

/** Field names the routes know, plus prototype keys, so that bodies get past "unknown field" and into values. */
const keys = fc.constantFrom(
  'name',
  'email',
  'username',
  'password',
  'status',
  'roles',
  'rules',
  'field',
  'search',
  'page',
  'domainName',
  'redirectDomainName',
  'serverId',
  'brandId',
  'cloudId',
  'IPAddress',
  'sshPort',
  'port',
  'type',
  'action',
  'expression',
  'defaultPriority',
  'priority',
  'cloudFirewallRules',
  'ruleId',
  'credentials',
  'apiKey',
  'endpointUrl',
  'token',
  'content',
  'ttl',
  'proxied',
  'records',
  'deletes',
  'patches',
  'posts',
  'value',
  'id',
  '_id',
  '__proto__',
  'constructor',
  'prototype',
);

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    anId,
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(keys, tie('json'), { maxKeys: 5 }),
  ),
}));

/** Nesting no parser should have to walk. */
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

type Body = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string } | { kind: 'none' };
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 6, arbitrary: json.map((value) => ({ kind: 'json' as const, value })) },
  {
    weight: 3,
    arbitrary: fc.dictionary(keys, json, { maxKeys: 6 }).map((value) => ({ kind: 'json' as const, value })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        deep(5_000),
        deepObject(2_000),
        '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
        '{"a":',
        '{"a":1}garbage',
        'null',
        '"just a string"',
        '12345',
        '\u0000',
        `{"name":"${'x'.repeat(200_000)}"}`,
        `[${'1,'.repeat(50_000)}1]`,
      )
      .map((text) => ({ kind: 'raw' as const, text, type: 'application/json' })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
      )
      .map((type) => ({ kind: 'raw' as const, text: 'name=x&a\u0000=b', type })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

const queryKeys = fc.constantFrom(
  'page',
  'search',
  'entity',
  'entityId',
  'userId',
  'from',
  'to',
  'checkInUseCloudId',
  'checkInUseBrandId',
  'checkInUseCloudIdDomainId',
  'checkInUseYandexWebmasterAccountId',
  'type',
  'name',
  '__proto__',
  'constructor',
);
const query = fc.array(fc.tuple(queryKeys, fc.oneof(nastyString, fc.integer().map(String), anId)), { maxLength: 4 });

const request = fc.record({ route: fc.nat(), id: anId, query, body });

/** The id as a path segment; one that cannot be encoded (a lone surrogate) goes as invalid UTF-8 and a bare %. */
const pathSegment = (id: string) => {
  try {
    return encodeURIComponent(id);
  } catch {
    return '%ED%A0%80%FF%';
  }
};

const payloadOf = (withBody: boolean, b: Body) =>
  !withBody || b.kind === 'none' ? undefined : b.kind === 'raw' ? b.text : JSON.stringify(b.value);

// ---- the run ----

describe('fuzz', () => {
  it('keeps every provider URL on a closed loopback port', () => {
    for (const url of [t.config.CLOUDFLARE_API_URL, t.config.PROXY_CHECK_URL]) {
      expect(new URL(url).hostname).toBe('127.0.0.1');
    }
  });

  it(`answers ${REQUESTS} malformed requests across every route without a 5xx, each within 5 s`, async () => {
    const routes = t.app.registeredRoutes.filter((r) => !SKIP.has(`${r.method} ${r.url}`));
    expect(routes.length).toBeGreaterThan(10);
    const samples = fc.sample(request, { numRuns: REQUESTS, seed: SEED });
    const failures: string[] = [];
    const hit = new Map<string, number>();
    let i = 0;
    for (const s of samples) {
      // Every route in turn, so each gets its share however many there are.
      const route = routes[i++ % routes.length]!;
      const path = route.url.replace(/:[A-Za-z]+/g, () => pathSegment(s.id)).replace(/\*$/, 'x');
      const qs = new URLSearchParams(s.query).toString();
      const url = qs ? `${path}?${qs}` : path;
      const method = route.method as 'GET';
      const withBody = method !== 'GET' && method !== 'DELETE' && s.body.kind !== 'none';
      const started = performance.now();
      const res = await t.inject({
        method,
        url,
        headers: {
          authorization: admin,
          ...(withBody ? { 'content-type': s.body.kind === 'raw' ? s.body.type : 'application/json' } : {}),
        },
        payload: payloadOf(withBody, s.body),
      });
      const ms = performance.now() - started;
      const key = `${route.method} ${route.url}`;
      hit.set(key, (hit.get(key) ?? 0) + 1);
      if (res.statusCode >= 500 || ms > SLOW_MS) {
        failures.push(
          `${key} → ${res.statusCode} in ${Math.round(ms)} ms: ${url.slice(0, 200)} ${res.body.slice(0, 200)}`,
        );
      }
      // A request that ended the session (none should) would make the rest meaningless.
      if (res.statusCode === 401 && route.access !== 'public') {
        failures.push(`${key} → 401: the administrator's session ended`);
        break;
      }
    }
    expect(failures).toEqual([]);
    expect(samples.length).toBeGreaterThanOrEqual(5_000);
    // Every route was fuzzed.
    expect(routes.filter((r) => !hit.has(`${r.method} ${r.url}`))).toEqual([]);
    // ~6 ms a request on an idle machine (about 30 s in all); the timeout leaves room for a loaded one.
  }, 600_000);

  it(`sends ${SOCKET_REQUESTS} requests over keep-alive connections, unparseable ones among them, without a reset`, async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const routes = t.app.registeredRoutes.filter((r) => !SKIP.has(`${r.method} ${r.url}`) && r.method === 'GET');
    const samples = fc.sample(request, { numRuns: SOCKET_REQUESTS, seed: SEED + 1 });
    // Four clients, each holding at most two sockets open and reusing them.
    const agents = Array.from({ length: 4 }, () => new http.Agent({ keepAlive: true, maxSockets: 2 }));
    const resets: string[] = [];
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const send = (agent: http.Agent, path: string, headers: http.OutgoingHttpHeaders) =>
      new Promise<void>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
          statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
          if (res.statusCode! >= 500) failures.push(`${res.statusCode} ${path.slice(0, 120)}`);
          res.resume();
          res.on('end', resolve);
          res.on('error', (e: NodeJS.ErrnoException) => {
            resets.push(`${e.code ?? e.message} reading ${path.slice(0, 80)}`);
            resolve();
          });
        });
        req.on('error', (e: NodeJS.ErrnoException) => {
          resets.push(`${e.code ?? e.message} sending ${path.slice(0, 80)}`);
          resolve();
        });
      });
    try {
      let i = 0;
      const work = agents.map(async (agent, a) => {
        for (let k = a; k < samples.length; k += agents.length) {
          const s = samples[k]!;
          const route = routes[i++ % routes.length]!;
          const path = route.url.replace(/:[A-Za-z]+/g, () => pathSegment(s.id)).replace(/\*$/, 'x');
          const qs = new URLSearchParams(s.query).toString();
          const headers: http.OutgoingHttpHeaders = { authorization: admin };
          // Every fifth request is one Node cannot parse: headers over the limit (431) or a bad length (400).
          const bad = k % 5 === 0 ? (k % 10 === 0 ? 'huge' : 'length') : undefined;
          if (bad === 'length') headers['content-length'] = 'twelve';
          const url = bad === 'huge' ? `${path}?q=${'a'.repeat(20 * 1024)}` : qs ? `${path}?${qs}` : path;
          await send(agent, url, headers);
        }
      });
      await Promise.all(work);
    } finally {
      for (const agent of agents) agent.destroy();
    }
    expect(resets).toEqual([]);
    expect(failures).toEqual([]);
    expect(statuses.get(431)).toBeGreaterThanOrEqual(SOCKET_REQUESTS / 10);
    expect(statuses.get(400)).toBeGreaterThanOrEqual(SOCKET_REQUESTS / 10);
  }, 600_000);
});
