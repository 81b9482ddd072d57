import { describe, expect, it } from 'vitest';
import { DIRECT_ADMIN_MESSAGES } from '@fleetdesk/contract';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import { useAdminCalls, useTestApp } from '../../test/fixtures.ts';

const ADMIN_PASSWORD = 'da-adm1n-pa55word';

let sim: DirectAdminSim;
const t = useTestApp(
  { DIRECTADMIN_TIMEOUT_SECONDS: '3' },
  {
    before: async () => {
      sim = await startDirectAdminSim({
        users: [
          { username: 'admin', password: ADMIN_PASSWORD, level: 'admin' },
          { username: 'web', password: 'web-pa55word', domains: ['existing.example'] },
        ],
      });
    },
    after: async () => sim?.close(),
    each: () => {
      sim.clearFailures();
      sim.resetBruteForce();
    },
  },
);
const { call, domainOn, nextName, token } = useAdminCalls(t);

type Method = 'GET' | 'POST';
const da = (method: Method, domainId: string, action: string, auth = token()) =>
  call(method, `/api/domains/${domainId}/direct-admin/${action}`, undefined, auth);

const panel = (o: object = {}) => ({
  directAdminUri: sim.url,
  directAdminUsername: 'admin|web',
  directAdminPassword: ADMIN_PASSWORD,
  ...o,
});

describe('Direct Admin calls', () => {
  it('reads not created, creates, reads created, deletes, and reads not created again', async () => {
    const { domainId, name } = await domainOn(panel());
    let res = await da('GET', domainId, 'domain-info');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ domainCreated: false, domainName: name, domainInfoData: null });

    res = await da('POST', domainId, 'create-domain');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      domainCreated: true,
      message: 'Domain Created',
      domainInfoData: { domain: name, username: 'web', ssl: true, php: true },
    });
    expect(sim.domainsOf('web').map((d) => d.name)).toContain(name);
    // Impersonation: the admin's credentials acted as the user.
    expect(sim.requests.at(-1)?.login).toBe('admin|web');

    res = await da('GET', domainId, 'domain-info');
    expect(res.json().data).toMatchObject({ domainCreated: true, domainInfoData: { domain: name } });

    res = await da('POST', domainId, 'delete-domain');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ domainCreated: false, message: 'Domain Deletion Results' });
    res = await da('GET', domainId, 'domain-info');
    expect(res.json().data.domainCreated).toBe(false);

    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${domainId}`);
    expect(audit.statusCode, audit.body).toBe(200);
    const actions = (audit.json().data.items as { action: string }[]).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['directadmin_create_domain', 'directadmin_delete_domain']));
  });

  it('creates an internationalised name in its ASCII (punycode) form', async () => {
    const { domainId } = await domainOn(panel(), nextName().replace(/^site/, 'bücher'));
    const res = await da('POST', domainId, 'create-domain');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.domainInfoData.domain).toMatch(/^xn--bcher-.*\.example$/);
    expect(sim.domainsOf('web').some((d) => d.name.startsWith('xn--bcher-'))).toBe(true);
  });

  it('answers DirectAdmin refusals with serviceResponse and message', async () => {
    const { domainId } = await domainOn(panel(), 'existing.example');
    const res = await da('POST', domainId, 'create-domain');
    expect(res.statusCode).toBe(502);
    const body = res.json();
    expect(body.message).toBe('DirectAdmin: Cannot create domain: That domain already exists on this server.');
    expect(body.code).toBe('upstream_refused');
    expect(body.serviceResponse).toEqual({
      error: 'Cannot create domain',
      result: 'That domain already exists on this server.',
      extended: {},
    });
    const del = await da('POST', (await domainOn(panel())).domainId, 'delete-domain');
    expect(del.statusCode).toBe(502);
    expect(del.json().serviceResponse.error).toBe('Error deleting domains');
  });

  it('refuses a domain without a server, a server without credentials, and a malformed username with 400', async () => {
    const none = await domainOn(null);
    let res = await da('GET', none.domainId, 'domain-info');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_server', message: DIRECT_ADMIN_MESSAGES.noServer });
    const bare = await domainOn({ directAdminUri: sim.url, directAdminUsername: 'admin' });
    res = await da('POST', bare.domainId, 'create-domain');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_panel_credentials', message: DIRECT_ADMIN_MESSAGES.noCredentials });
    const odd = await domainOn(panel({ directAdminUsername: 'admin|web|x' }));
    res = await da('GET', odd.domainId, 'domain-info');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('bad_panel_username');
    expect(sim.failedLogins()).toBe(0);
  });

  it('reports bad credentials once, never logging the password, and a timeout as 504', async () => {
    const { domainId } = await domainOn(panel({ directAdminPassword: 'wrong-da-password' }));
    const res = await da('POST', domainId, 'create-domain');
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('upstream_auth_failed');
    expect(res.json().message).toMatch(/^DirectAdmin: the login was rejected/);
    const again = await da('GET', domainId, 'domain-info');
    expect(again.json().message).toContain('not trying them again');
    expect(sim.failedLogins()).toBe(1);
    expect(t.logs.join('\n')).not.toContain('wrong-da-password');
    expect(t.logs.join('\n')).not.toContain(ADMIN_PASSWORD);

    const slow = await domainOn(panel());
    sim.fail({ kind: 'slow', delayMs: 5000 });
    const timedOut = await da('GET', slow.domainId, 'domain-info');
    expect(timedOut.statusCode).toBe(504);
    expect(timedOut.json().message).toBe('DirectAdmin: timed out after 3000 ms');
  });

  it('needs the domains rule, and 404 for an unknown domain', async () => {
    const { domainId } = await domainOn(panel());
    const other = await t.tokenFor(['cnv:servers']);
    expect((await da('GET', domainId, 'domain-info', other)).statusCode).toBe(403);
    expect((await da('POST', domainId, 'create-domain', other)).statusCode).toBe(403);
    const missing = await da('GET', '00000000-0000-4000-8000-000000000000', 'domain-info');
    expect(missing.statusCode).toBe(404);
    expect((await da('GET', 'not-an-id', 'domain-info')).statusCode).toBe(400);
  });
});
