import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startIspManagerSim, type IspManagerSim } from '@fleetdesk/simulators/ispmanager/index.ts';
import { createIspManagerClient, IspManagerError, type IspManagerCredentials } from './index.ts';

describe('ISPmanager client against the simulator', () => {
  let sim: IspManagerSim;
  let plain: IspManagerSim;
  beforeAll(async () => {
    const users = [
      { username: 'root', password: 'r00t-secret' },
      { username: 'www-root', password: 'www-secret' },
    ];
    [sim, plain] = await Promise.all([
      startIspManagerSim({ users, sites: [{ name: 'seeded.example', owner: 'www-root' }] }),
      startIspManagerSim({ users, tls: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), plain?.close()]);
  });
  beforeEach(() => {
    sim.clearFailures();
    plain.clearFailures();
  });

  const creds = (o: Partial<IspManagerCredentials> = {}): IspManagerCredentials => ({
    baseUrl: sim.url,
    username: 'root',
    password: 'r00t-secret',
    acceptSelfSigned: true,
    ...o,
  });

  for (const authMode of ['authinfo', 'session'] as const) {
    it(`lists, reads, creates and deletes web domains (${authMode})`, async () => {
      const client = createIspManagerClient({ authMode, timeoutMs: 3000 });
      const c = creds();
      const name = `${authMode}-site.example`;
      expect(await client.findSite(c, name)).toBeNull();
      await client.createSite(c, { name: name.toUpperCase(), owner: 'www-root' });
      const row = await client.findSite(c, name);
      expect(row).toMatchObject({ name, owner: 'www-root', docroot: `www/${name}`, active: 'on' });
      const form = await client.getSiteForm(c, name);
      expect(form.fields).toMatchObject({
        name,
        owner: 'www-root',
        email: `webmaster@${name}`,
        aliases: `www.${name}`,
      });
      expect(JSON.parse(form.raw)).toHaveProperty('doc');
      await client.deleteSite(c, name);
      expect(await client.findSite(c, name)).toBeNull();
      const last = sim.requests.at(-1);
      expect(last?.authMode).toBe(authMode);
    });
  }

  it('signs in again once when the session has expired', async () => {
    const client = createIspManagerClient({ authMode: 'session' });
    await client.listSites(creds());
    const signIns = () => sim.requests.filter((r) => r.func === 'auth').length;
    const before = signIns();
    sim.expireSessions();
    expect((await client.listSites(creds())).map((r) => r.name)).toContain('seeded.example');
    expect(signIns()).toBe(before + 1);
  });

  it('reads the doc.error envelope that arrives with HTTP 200', async () => {
    const client = createIspManagerClient();
    const err = (await client
      .createSite(creds(), { name: 'seeded.example', owner: 'www-root' })
      .catch((e: unknown) => e)) as IspManagerError;
    expect(err).toBeInstanceOf(IspManagerError);
    expect(err.message).toBe("ISPmanager: WWW domain 'seeded.example' already exists");
    expect(err.errorType).toBe('exists');
    expect(err.code).toBe('upstream_refused');
  });

  it('reports bad credentials, for authinfo and for a session sign-in', async () => {
    for (const authMode of ['authinfo', 'session'] as const) {
      const client = createIspManagerClient({ authMode });
      const err = (await client
        .listSites(creds({ password: 'wrong-pass' }))
        .catch((e: unknown) => e)) as IspManagerError;
      expect(err.code).toBe('upstream_auth_failed');
      expect(err.message).toMatch(/^ISPmanager: authorization failed/);
      expect(err.message).not.toContain('wrong-pass');
    }
  });

  it("refuses the panel's self-signed certificate unless the server record accepts it", async () => {
    const client = createIspManagerClient();
    const err = (await client
      .listSites(creds({ acceptSelfSigned: false }))
      .catch((e: unknown) => e)) as IspManagerError;
    expect(err.code).toBe('upstream_tls');
    expect(err.message).toContain('Accept self-signed certificate');
    expect((await client.listSites(creds())).length).toBeGreaterThan(0);
  });

  it('works over plain HTTP and with the /ispmgr path in the URI', async () => {
    const client = createIspManagerClient();
    const c = creds({ baseUrl: `${plain.url}/ispmgr`, acceptSelfSigned: false });
    expect(await client.listSites(c)).toEqual([]);
  });

  it('times out on a slow panel, and names ISPmanager on a 5xx and on an HTML page', async () => {
    const client = createIspManagerClient({ timeoutMs: 200 });
    sim.fail({ kind: 'slow', delayMs: 1500 });
    const slow = (await client.listSites(creds()).catch((e: unknown) => e)) as IspManagerError;
    expect(slow.status).toBe(504);
    expect(slow.message).toBe('ISPmanager: timed out after 200 ms');
    sim.clearFailures();
    const patient = createIspManagerClient({ timeoutMs: 5000 });
    sim.fail({ kind: '5xx' });
    const bad = (await patient.listSites(creds()).catch((e: unknown) => e)) as IspManagerError;
    expect(bad.message).toBe('ISPmanager: HTTP 502 from the panel');
    sim.fail({ kind: 'html' });
    const html = (await patient.listSites(creds()).catch((e: unknown) => e)) as IspManagerError;
    expect(html.message).toContain('instead of its JSON document');
  });

  it('keeps the raw answer when the site form cannot be read', async () => {
    const client = createIspManagerClient();
    sim.addSite({ name: 'odd.example', owner: 'www-root' });
    sim.setRawForm('odd.example', '{"doc":{"$func":"webdomain.edit","site_name":{"$":"odd.example"}}}');
    const form = await client.getSiteForm(creds(), 'odd.example');
    expect(form.fields).toBeNull();
    expect(form.raw).toContain('site_name');
  });
});
