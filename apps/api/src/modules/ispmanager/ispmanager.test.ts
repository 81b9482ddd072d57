import { describe, expect, it } from 'vitest';
import { ISPMANAGER_MESSAGES, SITE_NOT_CREATED_CODE } from '@fleetdesk/contract';
import { startIspManagerSim, type IspManagerSim } from '@fleetdesk/simulators/ispmanager/index.ts';
import { useAdminCalls, useTestApp } from '../../test/fixtures.ts';

const ROOT_PASSWORD = 'isp-r00t-pa55word';

let sim: IspManagerSim;
const t = useTestApp(
  { ISPMANAGER_TIMEOUT_SECONDS: '3' },
  {
    before: async () => {
      sim = await startIspManagerSim({
        users: [{ username: 'root', password: ROOT_PASSWORD }],
        sites: [{ name: 'taken.example', owner: 'www-root' }],
      });
    },
    after: async () => sim?.close(),
    each: () => sim.clearFailures(),
  },
);
const { call, domainOn, token } = useAdminCalls(t, { domainPrefix: 'isp' });

type Method = 'GET' | 'POST' | 'PUT';
const isp = (method: Method, domainId: string, action: string, auth = token()) =>
  call(method, `/api/domains/${domainId}/ispmanager/${action}`, undefined, auth);

const panel = (o: object = {}) => ({
  ispmanagerUri: `${sim.url}/ispmgr`,
  ispmanagerUsername: 'root',
  ispmanagerPassword: ROOT_PASSWORD,
  ispmanagerAcceptSelfSigned: true,
  ...o,
});

describe('ISP Manager calls', () => {
  it('answers siteNotCreated, creates the site, then answers its details', async () => {
    const { domainId, name } = await domainOn(panel());
    let res = await isp('GET', domainId, 'site-info');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: SITE_NOT_CREATED_CODE, message: ISPMANAGER_MESSAGES.siteNotCreated });

    res = await isp('POST', domainId, 'create-site');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      siteCreated: true,
      domainName: name,
      siteInfoData: { name, owner: 'root', home: `www/${name}`, email: `webmaster@${name}`, aliases: `www.${name}` },
      rawAnswer: null,
    });
    expect(sim.sites().map((s) => s.name)).toContain(name);

    res = await isp('GET', domainId, 'site-info');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.siteInfoData.name).toBe(name);

    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${domainId}`);
    expect((audit.json().data.items as { action: string }[]).map((a) => a.action)).toContain('ispmanager_create_site');
  });

  it('answers the raw answer when the site info cannot be read', async () => {
    const { domainId, name } = await domainOn(panel());
    sim.addSite({ name, owner: 'www-root' });
    sim.setRawForm(name, '{"doc":{"site_name":{"$":"x"}}}');
    const res = await isp('GET', domainId, 'site-info');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      siteCreated: true,
      domainName: name,
      siteInfoData: null,
      rawAnswer: '{"doc":{"site_name":{"$":"x"}}}',
    });
  });

  it("passes on the panel's refusal, naming ISPmanager", async () => {
    const { domainId } = await domainOn(panel(), 'taken.example');
    const res = await isp('POST', domainId, 'create-site');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'upstream_refused',
      message: "ISPmanager: WWW domain 'taken.example' already exists",
    });
  });

  it('refuses the self-signed certificate unless the server says so; the flag is part of the server', async () => {
    const { domainId, server } = await domainOn(panel({ ispmanagerAcceptSelfSigned: false }));
    expect(server?.ispmanagerAcceptSelfSigned).toBe(false);
    let res = await isp('GET', domainId, 'site-info');
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('upstream_tls');
    const put = await call('PUT', `/api/servers/${String(server?._id)}`, {
      IPAddress: '127.0.0.1',
      ispmanagerAcceptSelfSigned: true,
    } as object);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data.ispmanagerAcceptSelfSigned).toBe(true);
    res = await isp('GET', domainId, 'site-info');
    expect(res.json().code).toBe(SITE_NOT_CREATED_CODE);
  });

  it('refuses a domain without a server or a server without credentials with 400', async () => {
    const none = await domainOn(null);
    let res = await isp('GET', none.domainId, 'site-info');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_server', message: ISPMANAGER_MESSAGES.noServer });
    const bare = await domainOn({ ispmanagerUri: sim.url });
    res = await isp('POST', bare.domainId, 'create-site');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_panel_credentials' });
  });

  it('reports bad credentials and timeouts, never logging the password', async () => {
    const bad = await domainOn(panel({ ispmanagerPassword: 'wrong-isp-password' }));
    const res = await isp('POST', bad.domainId, 'create-site');
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('upstream_auth_failed');
    expect(res.json().message).toMatch(/^ISPmanager: authorization failed/);
    const { domainId } = await domainOn(panel());
    sim.fail({ kind: 'slow', delayMs: 5000 });
    const slow = await isp('GET', domainId, 'site-info');
    expect(slow.statusCode).toBe(504);
    expect(slow.json().message).toBe('ISPmanager: timed out after 3000 ms');
    const logs = t.logs.join('\n');
    expect(logs).not.toContain('wrong-isp-password');
    expect(logs).not.toContain(ROOT_PASSWORD);
  });

  it('needs the domains rule', async () => {
    const { domainId } = await domainOn(panel());
    const other = await t.tokenFor(['cnv:servers']);
    expect((await isp('GET', domainId, 'site-info', other)).statusCode).toBe(403);
    expect((await isp('POST', domainId, 'create-site', other)).statusCode).toBe(403);
  });
});
