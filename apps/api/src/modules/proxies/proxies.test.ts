import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@fleetdesk/contract';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let h: { authorization: string };
let target: http.Server;
const proxies: ForwardProxy[] = [];
const listeners: Listener[] = [];

beforeAll(async () => {
  target = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const checkUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/trace`;
  t = await createTestApp({ PROXY_CHECK_URL: checkUrl });
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all(listeners.map((l) => l.close()));
  await new Promise((r) => target.close(r));
  await t?.close();
});
beforeEach(async () => {
  await t.reset();
  h = { authorization: await t.tokenFor(['cnv:proxies', 'cnv:regions']) };
});

const post = (payload: object) => t.inject({ method: 'POST', url: '/api/proxies', headers: h, payload });

/** A loopback listener that counts the connections it gets: where a moved proxy would send its password. */
type Listener = { port: number; connections: () => number; received: () => string; close: () => Promise<void> };
async function listen(host: string, port = 0): Promise<Listener> {
  let connections = 0;
  let received = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Keep what arrives (a Proxy-Authorization header would), then hang up so nothing waits for a timeout.
    socket.on('data', (d) => {
      received += d.toString('latin1');
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const listener: Listener = {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    received: () => received,
    close: () =>
      new Promise<void>((r) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => r());
      }),
  };
  listeners.push(listener);
  return listener;
}

describe('proxies', () => {
  it('creates with string booleans and a region, masks the password, updates and deletes', async () => {
    const region = (await t.inject({ method: 'POST', url: '/api/regions', headers: h, payload: { name: 'EU' } })).json()
      .data;
    const res = await post({
      isHttps: 'true',
      IPAddress: '10.0.0.1',
      httpPort: '8080',
      username: 'u',
      password: 'secret-pass',
      regionId: region._id,
      proxyType: 'http',
    });
    expect(res.statusCode).toBe(201);
    const p = res.json().data;
    expect(p).toMatchObject({
      proxyNo: 1,
      isHttps: true,
      IPAddress: '10.0.0.1',
      httpPort: 8080,
      password: SECRET_MASK,
      region: { _id: region._id, name: 'EU' },
      proxyType: 'http',
      checkStatus: null,
    });
    // The form sends every field: the same address with the masked password keeps the password.
    const upd = await t.inject({
      method: 'PATCH',
      url: `/api/proxies/${p._id}`,
      headers: h,
      payload: { isHttps: true, IPAddress: '10.0.0.1', username: 'u2', password: SECRET_MASK },
    });
    expect(upd.json().data).toMatchObject({
      isHttps: true,
      IPAddress: '10.0.0.1',
      username: 'u2',
      password: SECRET_MASK,
    });
    const revealed = await t.inject({
      method: 'POST',
      url: `/api/proxies/${p._id}/reveal`,
      headers: h,
      payload: { field: 'password' },
    });
    expect(revealed.json().data.value).toBe('secret-pass');
    expect((await t.inject({ method: 'DELETE', url: `/api/proxies/${p._id}`, headers: h })).statusCode).toBe(200);
  });

  it('has no required fields but validates what is given', async () => {
    expect((await post({})).statusCode).toBe(201);
    const cases: [object, string][] = [
      [{ IPAddress: '999.1.1.1' }, 'IPAddress'],
      [{ IPAddress: 'example.com' }, 'IPAddress'],
      [{ httpPort: 0 }, 'httpPort'],
      [{ httpPort: 65536 }, 'httpPort'],
      [{ httpPort: '80a' }, 'httpPort'],
      [{ proxyType: 'ftp' }, 'proxyType'],
      [{ isHttps: 'maybe' }, 'isHttps'],
      [{ regionId: 'nope' }, 'regionId'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().fields[field], JSON.stringify(res.json())).toBeTruthy();
    }
  });

  it('a region used by a proxy cannot be deleted', async () => {
    const region = (await t.inject({ method: 'POST', url: '/api/regions', headers: h, payload: { name: 'US' } })).json()
      .data;
    await post({ IPAddress: '10.0.0.9', regionId: region._id });
    const del = await t.inject({ method: 'DELETE', url: `/api/regions/${region._id}`, headers: h });
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toContain('1 proxy (10.0.0.9)');
  });

  describe('check', () => {
    const check = (id: string) => t.inject({ method: 'POST', url: `/api/proxies/${id}/check`, headers: h });

    it('does not probe ports of other services (decision 013): the check fails without connecting', async () => {
      for (const port of [22, 25, 3306, 6379]) {
        const p = (await post({ IPAddress: '127.0.0.1', httpPort: port, proxyType: 'http' })).json().data;
        const res = await check(p._id);
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({
          ok: false,
          latencyMs: null,
          error: expect.stringMatching(/^Proxy checks /),
        });
      }
    });

    for (const kind of ['http', 'socks5'] as const) {
      for (const withAuth of [false, true]) {
        it(`goes through a ${kind} proxy ${withAuth ? 'with' : 'without'} credentials and records the result`, async () => {
          const proxy = await startForwardProxy({
            kind,
            ...(withAuth ? { username: 'pu', password: 'p@ss:w/rd' } : {}),
          });
          proxies.push(proxy);
          const p = (
            await post({
              IPAddress: '127.0.0.1',
              httpPort: proxy.port,
              proxyType: kind,
              ...(withAuth ? { username: 'pu', password: 'p@ss:w/rd' } : {}),
            })
          ).json().data;
          const res = await check(p._id);
          expect(res.statusCode).toBe(200);
          expect(res.json().data).toMatchObject({ ok: true, error: null });
          expect(proxy.requests).toBe(1);
          const after = (await t.inject({ method: 'GET', url: `/api/proxies/${p._id}`, headers: h })).json().data;
          expect(after).toMatchObject({ checkStatus: 'ok', checkError: null });
          expect(after.checkLatencyMs).toBeGreaterThanOrEqual(0);
          expect(after.checkedAt).toBeTruthy();
        });
      }
    }

    it('records an error for wrong credentials and for a dead proxy, without leaking the password', async () => {
      const proxy = await startForwardProxy({ kind: 'http', username: 'pu', password: 'right' });
      proxies.push(proxy);
      const wrong = (
        await post({
          IPAddress: '127.0.0.1',
          httpPort: proxy.port,
          proxyType: 'http',
          username: 'pu',
          password: 'wrong-secret',
        })
      ).json().data;
      const r1 = (await check(wrong._id)).json().data;
      expect(r1.ok).toBe(false);
      expect(r1.error).toMatch(/407|auth/i);
      expect(JSON.stringify(r1)).not.toContain('wrong-secret');

      const dead = (await post({ IPAddress: '127.0.0.1', httpPort: 1, proxyType: 'socks5' })).json().data;
      const r2 = (await check(dead._id)).json().data;
      expect(r2.ok).toBe(false);
      expect(r2.error).toBeTruthy();
      const statuses = async () =>
        (await t.inject({ method: 'GET', url: '/api/proxies', headers: h }))
          .json()
          .data.items.map((p: { checkStatus: string }) => p.checkStatus);
      // One failed check is not yet evidence (issue 26); a second in a row is.
      expect(await statuses()).toEqual([null, null]);
      await check(wrong._id);
      await check(dead._id);
      expect(await statuses()).toEqual(['error', 'error']);
    });

    it('marks a proxy failed only on evidence that holds: two failures in a row, or two processes', async () => {
      const region = (
        await t.inject({ method: 'POST', url: '/api/regions', headers: h, payload: { name: 'R' } })
      ).json().data;
      const a = (await post({ IPAddress: '127.0.0.1', httpPort: 1, proxyType: 'http', regionId: region._id })).json()
        .data;
      const b = (await post({ IPAddress: '127.0.0.1', httpPort: 2, proxyType: 'http', regionId: region._id })).json()
        .data;
      const repo = t.c.repos.proxies;
      const fail = { ok: false, latencyMs: null, error: 'connect ECONNREFUSED', checkedAt: new Date() };
      const ok = { ok: true, latencyMs: 12, error: null, checkedAt: new Date() };
      const status = async (id: string) => (await repo.findRow(id))?.checkStatus;
      await repo.recordCheck(a._id, ok, 'api:1');
      // One process, one failure: still usable. A success in between starts the count again.
      await repo.recordCheck(a._id, fail, 'worker:7');
      expect(await status(a._id)).toBe('ok');
      await repo.recordCheck(a._id, ok, 'api:1');
      await repo.recordCheck(a._id, fail, 'worker:7');
      expect(await status(a._id)).toBe('ok');
      await repo.recordCheck(a._id, fail, 'worker:7');
      expect(await status(a._id)).toBe('error');
      // Two processes that each saw it fail once: marked.
      await repo.recordCheck(b._id, fail, 'worker:7');
      await repo.recordCheck(b._id, fail, 'api:1');
      expect(await status(b._id)).toBe('error');
      // Every proxy of the region marked failed: calls still get them to try.
      const endpoints = await t.c.services.proxies.endpointsInRegion(region._id);
      expect(endpoints.map((e) => [e.proxyId, e.failed])).toEqual([
        [a._id, true],
        [b._id, true],
      ]);
      // A call that worked clears the mark at once.
      await t.c.services.proxies.markWorked(a._id);
      expect(await status(a._id)).toBe('ok');
      expect((await t.c.services.proxies.endpointsInRegion(region._id)).map((e) => e.proxyId)).toEqual([a._id]);
    });

    // Issue 42: undici reconnected without limit to an http proxy that read the CONNECT and hung up (38,064
    // connections in one 10 s check), sending the stored password each time.
    for (const kind of ['http', 'socks5'] as const) {
      it(`makes one attempt at a ${kind} proxy that reads the request and hangs up, and says so`, async () => {
        const hangsUp = await listen('127.0.0.1');
        const p = (
          await post({
            IPAddress: '127.0.0.1',
            httpPort: hangsUp.port,
            proxyType: kind,
            username: 'pu',
            password: 'hang-up-secret',
          })
        ).json().data;
        const started = Date.now();
        const res = await check(p._id);
        expect(res.statusCode).toBe(200);
        expect(hangsUp.connections()).toBeGreaterThanOrEqual(1);
        expect(hangsUp.connections()).toBeLessThanOrEqual(3);
        expect(res.json().data).toMatchObject({
          ok: false,
          latencyMs: null,
          error: `Proxy 127.0.0.1:${hangsUp.port} closed the connection`,
        });
        // Answered at once, not at the check's timeout.
        expect(Date.now() - started).toBeLessThan(5_000);
      });
    }

    it('refuses to check an incomplete proxy with 400', async () => {
      const p = (await post({ IPAddress: '127.0.0.1' })).json().data;
      const res = await check(p._id);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('The proxy cannot be checked: Port, Type not set');
    });

    it('keeps the check when the same values are saved again and clears it when the endpoint changes', async () => {
      const proxy = await startForwardProxy({ kind: 'http' });
      proxies.push(proxy);
      const p = (await post({ IPAddress: '127.0.0.1', httpPort: proxy.port, proxyType: 'http' })).json().data;
      await check(p._id);
      const same = await t.inject({
        method: 'PUT',
        url: `/api/proxies/${p._id}`,
        headers: h,
        payload: { IPAddress: '127.0.0.1', httpPort: proxy.port, proxyType: 'http' },
      });
      expect(same.json().data.checkStatus).toBe('ok');
      const moved = await t.inject({
        method: 'PATCH',
        url: `/api/proxies/${p._id}`,
        headers: h,
        payload: { httpPort: 1 },
      });
      expect(moved.json().data.checkStatus).toBeNull();
    });
  });
});

describe('where the password goes (decision 058)', () => {
  const PASSWORD = 'stored-pr0xy-secret';
  const bearerFor = async (rules: string[]) => {
    const session = await t.tokenFor(rules);
    const res = await t.inject({
      method: 'POST',
      url: '/auth/tokens',
      headers: { authorization: session },
      payload: { name: 'ci', rules, expiresInDays: 30 },
    });
    return `Bearer ${res.json().data.token as string}`;
  };
  const patch = (id: string, payload: object, auth = h) =>
    t.inject({ method: 'PATCH', url: `/api/proxies/${id}`, headers: auth, payload });
  const get = async (id: string) =>
    (await t.inject({ method: 'GET', url: `/api/proxies/${id}`, headers: h })).json().data;
  const reveal = async (id: string) =>
    (
      await t.inject({ method: 'POST', url: `/api/proxies/${id}/reveal`, headers: h, payload: { field: 'password' } })
    ).json().data.value;
  const withPassword = (over: object = {}) =>
    post({ IPAddress: '10.0.0.1', httpPort: 3128, proxyType: 'http', username: 'pu', password: PASSWORD, ...over });

  it('refuses an API token that moves a proxy, so its password never reaches the new address', async () => {
    const proxy = await startForwardProxy({ kind: 'http', username: 'pu', password: PASSWORD });
    proxies.push(proxy);
    // Where a token would send the password: the proxy's port on another loopback address, and another port.
    const elsewhere = await listen('127.0.0.2', proxy.port);
    const otherPort = await listen('127.0.0.1');
    const p = (await withPassword({ IPAddress: '127.0.0.1', httpPort: proxy.port })).json().data;
    const bearer = { authorization: await bearerFor(['cnv:proxies']) };
    const moves: [object, string][] = [
      [{ IPAddress: '127.0.0.2' }, 'IPAddress'],
      [{ IPAddress: '127.0.0.2', password: SECRET_MASK }, 'IPAddress'],
      // Not even with the password typed again.
      [{ IPAddress: '127.0.0.2', password: PASSWORD }, 'IPAddress'],
      [{ httpPort: otherPort.port }, 'httpPort'],
      [{ IPAddress: '127.0.0.2', httpPort: otherPort.port }, 'IPAddress, httpPort'],
    ];
    for (const [payload, fields] of moves) {
      const res = await patch(p._id, payload, bearer);
      expect(res.statusCode, JSON.stringify(payload)).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'token_destination_change',
        message: `An API token cannot change where a stored credential is sent (${fields})`,
      });
    }
    expect(await get(p._id)).toMatchObject({ IPAddress: '127.0.0.1', httpPort: proxy.port, password: SECRET_MASK });
    // The token's check still goes to the stored address, and nothing reaches the listeners.
    const checked = await t.inject({ method: 'POST', url: `/api/proxies/${p._id}/check`, headers: bearer });
    expect(checked.statusCode).toBe(200);
    expect(checked.json().data).toMatchObject({ ok: true, error: null });
    expect(proxy.requests).toBe(1);
    expect(elsewhere.connections()).toBe(0);
    expect(otherPort.connections()).toBe(0);
    expect(elsewhere.received() + otherPort.received()).not.toContain(Buffer.from(`pu:${PASSWORD}`).toString('base64'));
    // Unchanged values and every other field are still the token's to change.
    const same = await patch(p._id, { IPAddress: '127.0.0.1', httpPort: proxy.port, isHttps: false }, bearer);
    expect(same.statusCode, same.body).toBe(200);
    expect((await patch(p._id, { username: 'pu2' }, bearer)).statusCode).toBe(200);
  });

  it('needs the password again to move a proxy to another IP address', async () => {
    const p = (await withPassword()).json().data;
    // Absent, the mask (the form's untouched field) and '' all keep the stored password: none is typing it.
    for (const password of [undefined, SECRET_MASK, '']) {
      const res = await patch(p._id, { IPAddress: '127.0.0.2', password });
      expect(res.statusCode, String(password)).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'credential_required',
        fields: { password: 'Enter the password again to change the IP address' },
      });
      expect(Object.keys(res.json().fields)).toEqual(['password']);
    }
    expect((await get(p._id)).IPAddress).toBe('10.0.0.1');
    // The form sends every field: the same address and the mask change nothing that matters.
    const same = await patch(p._id, { IPAddress: '10.0.0.1', httpPort: 3128, password: SECRET_MASK, isHttps: true });
    expect(same.statusCode, same.body).toBe(200);
    const moved = await patch(p._id, { IPAddress: '2001:db8::1', password: PASSWORD });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ IPAddress: '2001:db8::1', password: SECRET_MASK });
    expect(await reveal(p._id)).toBe(PASSWORD);
    // Clearing the address sends the password nowhere; a new one later is a move like any other.
    expect((await patch(p._id, { IPAddress: null })).statusCode).toBe(200);
    expect((await patch(p._id, { IPAddress: '10.0.0.2' })).statusCode).toBe(400);
    // Clearing the password in the same request leaves nothing to send.
    const cleared = await patch(p._id, { IPAddress: '10.0.0.2', password: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data).toMatchObject({ IPAddress: '10.0.0.2', password: null });
  });

  it('needs the password again to change the port', async () => {
    const p = (await withPassword()).json().data;
    const res = await patch(p._id, { httpPort: 8080, password: SECRET_MASK });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toEqual({ password: 'Enter the password again to change the port' });
    const both = await patch(p._id, { IPAddress: '10.0.0.3', httpPort: '8080' });
    expect(both.statusCode).toBe(400);
    expect(both.json().fields).toEqual({ password: 'Enter the password again to change the IP address and port' });
    expect(await get(p._id)).toMatchObject({ IPAddress: '10.0.0.1', httpPort: 3128 });
    const moved = await patch(p._id, { httpPort: '8080', password: PASSWORD });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.httpPort).toBe(8080);
    expect((await patch(p._id, { httpPort: null })).statusCode).toBe(200);
    expect((await patch(p._id, { httpPort: 3128 })).statusCode).toBe(400);
  });

  it('needs the password again to turn HTTPS off, which would send it in the clear; tokens may not', async () => {
    const p = (await withPassword({ isHttps: true })).json().data;
    const bearer = { authorization: await bearerFor(['cnv:proxies']) };
    for (const isHttps of [false, 'false']) {
      const byToken = await patch(p._id, { isHttps }, bearer);
      expect(byToken.statusCode, String(isHttps)).toBe(403);
      expect(byToken.json()).toMatchObject({
        code: 'token_destination_change',
        message: 'An API token cannot change where a stored credential is sent (isHttps)',
      });
    }
    for (const password of [undefined, SECRET_MASK, '']) {
      const res = await patch(p._id, { isHttps: false, password });
      expect(res.statusCode, String(password)).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'credential_required',
        fields: { password: 'Enter the password again to change the HTTPS setting' },
      });
      expect(Object.keys(res.json().fields)).toEqual(['password']);
    }
    const both = await patch(p._id, { httpPort: 8080, isHttps: false, password: SECRET_MASK });
    expect(both.json().fields).toEqual({ password: 'Enter the password again to change the port and HTTPS setting' });
    expect(await get(p._id)).toMatchObject({ isHttps: true, httpPort: 3128 });
    // Unchanged, it moves nothing, for a token too.
    expect((await patch(p._id, { isHttps: true, username: 'pu2' }, bearer)).statusCode).toBe(200);
    const off = await patch(p._id, { isHttps: false, password: PASSWORD });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toMatchObject({ isHttps: false, password: SECRET_MASK });
    expect(await reveal(p._id)).toBe(PASSWORD);
    // Turning it on only adds TLS on the way to the same address: no password, and a token may.
    const on = await patch(p._id, { isHttps: true }, bearer);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.isHttps).toBe(true);
  });

  it('needs the password again to change the proxy type (a SOCKS5 login goes unencrypted); tokens may not', async () => {
    const p = (await withPassword({ isHttps: true })).json().data;
    const bearer = { authorization: await bearerFor(['cnv:proxies']) };
    const byToken = await patch(p._id, { proxyType: 'socks5' }, bearer);
    expect(byToken.statusCode).toBe(403);
    expect(byToken.json().message).toBe('An API token cannot change where a stored credential is sent (proxyType)');
    const bare = await patch(p._id, { proxyType: 'socks5', password: SECRET_MASK });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().fields).toEqual({ password: 'Enter the password again to change the proxy type' });
    expect(await get(p._id)).toMatchObject({ proxyType: 'http' });
    const moved = await patch(p._id, { proxyType: 'socks5', password: PASSWORD });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ proxyType: 'socks5' });
    expect((await patch(p._id, { proxyType: 'socks5', username: 'pu3' }, bearer)).statusCode).toBe(200);
  });

  it('moves a proxy without a stored password freely', async () => {
    const p = (await post({ IPAddress: '10.0.0.1', httpPort: 3128, proxyType: 'http', username: 'pu' })).json().data;
    const moved = await patch(p._id, { IPAddress: '10.0.0.2', httpPort: 8080, password: SECRET_MASK });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ IPAddress: '10.0.0.2', httpPort: 8080, password: null });
  });
});
