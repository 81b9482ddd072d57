import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@fleetdesk/contract';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let h: { authorization: string };
let host: SshHost;
let silent: net.Server;
let silentPort: number;
const good = generateKeyPair('ed25519');
const other = generateKeyPair('ed25519');

beforeAll(async () => {
  host = await startSshHost({ authorizedKeys: [good.publicLine] });
  fs.mkdirSync(path.join(host.rootDir, 'www'));
  // Accepts TCP and never speaks: the SSH handshake times out.
  silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as net.AddressInfo).port;
  t = await createTestApp({ SSH_TIMEOUT_SECONDS: '1.5' });
});
afterAll(async () => {
  await t?.close();
  await host?.close();
  silent?.close();
});
beforeEach(async () => {
  await t.reset();
  h = { authorization: await t.tokenFor(['cnv:servers']) };
});

const post = (payload: object) => t.inject({ method: 'POST', url: '/api/servers', headers: h, payload });
const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.inject({ method, url: `/api/servers${url}`, headers: h, ...(payload ? { payload } : {}) });

async function serverWithKey(over: object = {}, key = good.privateKey) {
  const s = (await post({ IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www', ...over })).json().data;
  expect((await api('POST', `/${s._id}/rsa-key`, { rsaKey: key })).statusCode).toBe(200);
  return s;
}

describe('servers CRUD', () => {
  it('creates with defaults, masks panel passwords, and lists status and free space', async () => {
    const res = await post({
      IPAddress: '5.6.7.8',
      domainsLimitQty: '50',
      directAdminPassword: 'da-secret',
      ispmanagerUri: 'https://panel.example:1500',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      serverNo: 1,
      IPAddress: '5.6.7.8',
      domainsLimitQty: 50,
      username: 'root',
      sshPort: 22,
      domainsPath: null,
      directAdminPassword: SECRET_MASK,
      ispmanagerPassword: null,
      domainsQty: 0,
      status: 'unknown',
      freeSpace: null,
      rsaKeySet: false,
    });
    const id = res.json().data._id;
    const upd = await api('POST', `/${id}/reveal`, { field: 'directAdminPassword' });
    expect(upd.json().data.value).toBe('da-secret');
    const list = (await api('GET', '?search=5.6.7')).json().data;
    expect(list.itemsCount).toBe(1);
  });

  it('validates the fields with per-field messages', async () => {
    const cases: [object, string][] = [
      [{}, 'IPAddress'],
      [{ IPAddress: 'server.example' }, 'IPAddress'],
      [{ IPAddress: '1.2.3.4', domainsLimitQty: -1 }, 'domainsLimitQty'],
      [{ IPAddress: '1.2.3.4', domainsLimitQty: 1.5 }, 'domainsLimitQty'],
      [{ IPAddress: '1.2.3.4', sshPort: 70000 }, 'sshPort'],
      [{ IPAddress: '1.2.3.4', domainsPath: 'www' }, 'domainsPath'],
      [{ IPAddress: '1.2.3.4', email: 'nope' }, 'email'],
      [{ IPAddress: '1.2.3.4', directAdminUri: 'ftp://x' }, 'directAdminUri'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().fields[field], JSON.stringify(res.json())).toBeTruthy();
    }
  });
});

describe('where the panel logins go (decision 058)', () => {
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
    t.inject({ method: 'PATCH', url: `/api/servers/${id}`, headers: auth, payload });

  it('needs the panel password again to change a panel URI', async () => {
    const s = (
      await post({
        IPAddress: '5.6.7.8',
        directAdminUri: 'https://da.example:2222',
        directAdminUsername: 'admin',
        directAdminPassword: 'da-secret',
        ispmanagerUri: 'https://panel.example:1500',
        ispmanagerUsername: 'root',
        ispmanagerPassword: 'isp-secret',
      })
    ).json().data;
    for (const pw of [undefined, SECRET_MASK]) {
      const res = await patch(s._id, { directAdminUri: 'http://127.0.0.1:39412', directAdminPassword: pw });
      expect(res.statusCode).toBe(400);
      expect(res.json().fields).toEqual({
        directAdminPassword: 'Enter the Direct Admin password again to change the Direct Admin URI',
      });
    }
    const isp = await patch(s._id, { ispmanagerUri: 'http://127.0.0.1:39412' });
    expect(isp.json().fields).toEqual({
      ispmanagerPassword: 'Enter the ISP Manager password again to change the ISP Manager URI',
    });
    // The form sends every field: the same URIs and masked passwords change nothing that matters.
    const same = await patch(s._id, {
      directAdminUri: 'https://da.example:2222',
      directAdminPassword: SECRET_MASK,
      email: 'ops@example.com',
    });
    expect(same.statusCode, same.body).toBe(200);
    const moved = await patch(s._id, { directAdminUri: 'https://da2.example:2222', directAdminPassword: 'da-new' });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.directAdminUri).toBe('https://da2.example:2222');
    // Clearing a URI sends the password nowhere.
    expect((await patch(s._id, { ispmanagerUri: null })).statusCode).toBe(200);
    // A server without a stored password has nothing to send anywhere.
    const bare = (await post({ IPAddress: '5.6.7.9' })).json().data;
    expect((await patch(bare._id, { directAdminUri: 'https://da.example' })).statusCode).toBe(200);
  });

  it('refuses an API token that changes a panel URI, even with the password', async () => {
    const s = (
      await post({ IPAddress: '5.6.7.8', directAdminUri: 'https://da.example:2222', directAdminPassword: 'da-secret' })
    ).json().data;
    const bearer = { authorization: await bearerFor(['cnv:servers']) };
    const res = await patch(s._id, { directAdminUri: 'http://127.0.0.1:39412', directAdminPassword: 'x' }, bearer);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('An API token cannot change where a stored credential is sent (directAdminUri)');
    expect((await patch(s._id, { email: 'ops@example.com' }, bearer)).statusCode).toBe(200);
    expect((await api('GET', `/${s._id}`)).json().data.directAdminUri).toBe('https://da.example:2222');
  });

  it('refuses a user name or password in a panel URI', async () => {
    const res = await post({ IPAddress: '5.6.7.8', directAdminUri: 'https://admin:pw@da.example:2222' });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.directAdminUri).toBe('Direct Admin URI must not contain a user name or password');
  });
});

describe('RSA key', () => {
  it('saves a pasted key, never returns it, shows its fingerprint, and deletes it', async () => {
    const s = (await post({ IPAddress: '127.0.0.1' })).json().data;
    const saved = await api('POST', `/${s._id}/rsa-key`, { rsaKey: good.privateKey });
    expect(saved.json().data).toMatchObject({ rsaKeySet: true, rsaKeyFingerprint: good.fingerprint });
    expect(saved.body).not.toContain('PRIVATE KEY');
    const got = (await api('GET', `/${s._id}`)).json().data;
    expect(got).toMatchObject({ rsaKeySet: true, rsaKeyFingerprint: good.fingerprint });
    expect(JSON.stringify(got)).not.toContain('PRIVATE');
    expect((await api('DELETE', `/${s._id}/rsa-key`)).statusCode).toBe(200);
    expect((await api('GET', `/${s._id}/rsa-key`)).json().data.rsaKeySet).toBe(false);
    expect((await api('DELETE', `/${s._id}/rsa-key`)).statusCode).toBe(404);
  });

  it('rejects an unparseable or encrypted key with a clear message', async () => {
    const s = (await post({ IPAddress: '127.0.0.1' })).json().data;
    const bad = await api('POST', `/${s._id}/rsa-key`, { rsaKey: 'hello' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.rsaKey).toMatch(/could not be parsed/);
    const pub = await api('POST', `/${s._id}/rsa-key`, { rsaKey: good.publicLine });
    expect(pub.statusCode).toBe(400);
  });

  it('generates a key pair and shows the public line', async () => {
    const s = (await post({ IPAddress: '127.0.0.1' })).json().data;
    const res = await api('POST', `/${s._id}/rsa-key/generate`, { kind: 'ed25519' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ rsaKeySet: true, rsaKeyType: 'ssh-ed25519' });
    expect(res.json().data.publicKey).toMatch(/^ssh-ed25519 \S+ fleetdesk$/);
  });
});

describe('test connection', () => {
  const run = (id: string) => api('POST', `/${id}/test-connection`);

  it('refuses to probe ports of other services (decision 013), with 400, leaving the status alone', async () => {
    for (const port of [25, 80, 5432, 6379]) {
      const s = await serverWithKey({ sshPort: port });
      const res = await run(s._id);
      expect(res.statusCode, `port ${port}`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'port_not_allowed', fields: { sshPort: expect.any(String) } });
      expect((await api('GET', `/${s._id}`)).json().data.checkError).toBeNull();
    }
  });

  it('succeeds over real SSH, reads the free space, trusts the host key on first use', async () => {
    const s = await serverWithKey();
    const res = await run(s._id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      message: 'Connection test successfull',
      status: 'online',
      hostKeyFingerprint: host.hostKeyFingerprint,
    });
    expect(res.json().data.freeSpace).toBeGreaterThan(0);
    const after = (await api('GET', `/${s._id}`)).json().data;
    expect(after).toMatchObject({ status: 'online', hostKeyFingerprint: host.hostKeyFingerprint, checkError: null });
    expect(after.freeSpace).toBeGreaterThan(0);
  });

  it('fails with 502 and the reason for a wrong key, and records the server as offline', async () => {
    const s = await serverWithKey({}, other.privateKey);
    const res = await run(s._id);
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(/Authentication failed/);
    expect(res.json().code).toBe('ssh_auth_failed');
    const after = (await api('GET', `/${s._id}`)).json().data;
    expect(after.status).toBe('offline');
    expect(after.checkError).toMatch(/Authentication failed/);
  });

  it('fails for a closed port, a timeout and a missing path', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const closed = await serverWithKey({ sshPort: closedPort });
    const r1 = await run(closed._id);
    expect(r1.statusCode).toBe(502);
    expect(r1.json().message).toMatch(/refused/i);

    const slow = await serverWithKey({ sshPort: silentPort });
    const r2 = await run(slow._id);
    expect(r2.statusCode).toBe(504);
    expect(r2.json().message).toMatch(/Timed out/i);

    const missing = await serverWithKey({ domainsPath: '/nowhere' });
    const r3 = await run(missing._id);
    expect(r3.statusCode).toBe(502);
    expect(r3.json().message).toBe('Path /nowhere does not exist on the server');
  });

  it('fails when the host key changed, until the stored fingerprint is cleared', async () => {
    const s = await serverWithKey();
    expect((await run(s._id)).statusCode).toBe(200);
    const { servers } = await import('../../db/schema/index.ts');
    await t.c.database.db.update(servers).set({ hostKeyFingerprint: 'SHA256:somethingElseEntirely' });
    t.c.ssh.closeAll();
    const changed = await run(s._id);
    expect(changed.statusCode).toBe(502);
    expect(changed.json().message).toMatch(/Host key changed/);
    expect((await api('DELETE', `/${s._id}/host-key`)).statusCode).toBe(200);
    expect((await run(s._id)).statusCode).toBe(200);
  });

  it('answers 400 when the record is incomplete: no key, no domains path', async () => {
    const noKey = (await post({ IPAddress: '127.0.0.1', domainsPath: '/www' })).json().data;
    const r1 = await run(noKey._id);
    expect(r1.statusCode).toBe(400);
    expect(r1.json().message).toBe('No RSA key is set for this server');
    const noPath = await serverWithKey({ domainsPath: null });
    const r2 = await run(noPath._id);
    expect(r2.statusCode).toBe(400);
    expect(r2.json().message).toBe('No domains path is set for this server');
  });
});
