import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import {
  createDirectAdminClient,
  decodeEntities,
  DirectAdminError,
  parseUrlEncoded,
  plainText,
  type DirectAdminCredentials,
} from './index.ts';

const USERS = [
  { username: 'admin', password: 'adm1n-secret', level: 'admin' as const },
  { username: 'alice', password: 'al1ce-secret', domains: ['alice.example'] },
  { username: 'bob', password: 'b0b-secret', domains: ['bob.example'], domainLimit: 1 },
];

describe('DirectAdmin client against the simulator', () => {
  let sim: DirectAdminSim;
  let legacy: DirectAdminSim;
  let loginPage: DirectAdminSim;
  beforeAll(async () => {
    [sim, legacy, loginPage] = await Promise.all([
      startDirectAdminSim({ users: USERS, badAuth: '401' }),
      startDirectAdminSim({ users: USERS, legacyOnly: true }),
      startDirectAdminSim({ users: USERS, badAuth: 'html' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), legacy?.close(), loginPage?.close()]);
  });
  beforeEach(() => {
    for (const s of [sim, legacy, loginPage]) {
      s.clearFailures();
      s.resetBruteForce();
    }
  });

  const as = (s: DirectAdminSim, username: string, password: string, actAs?: string): DirectAdminCredentials => ({
    baseUrl: `${s.url}/`,
    username,
    password,
    actAs,
  });

  for (const mode of ['json', 'url-encoded'] as const) {
    it(`creates, reads, lists and deletes a domain (${mode} answers)`, async () => {
      const s = mode === 'json' ? sim : legacy;
      const client = createDirectAdminClient({ timeoutMs: 3000 });
      const c = as(s, 'alice', 'al1ce-secret');
      const name = `${mode.replace('-', '')}-site.example`;
      expect(await client.hasDomain(c, name)).toBe(false);
      const created = await client.createDomain(c, name.toUpperCase());
      expect(created.text).toBe('Domain Created');
      expect(created.details).toContain(name);
      expect(await client.listDomains(c)).toContain(name);
      const info = await client.getDomain(c, name);
      expect(info).toMatchObject({ domain: name, username: 'alice', ssl: true, php: true, suspended: false });
      expect(info?.ips).toEqual(['127.0.0.1']);
      expect(await client.getDomain(c, 'absent.example')).toBeNull();
      const deleted = await client.deleteDomain(c, name);
      expect(deleted.text).toBe('Domain Deletion Results');
      expect(await client.hasDomain(c, name)).toBe(false);
    });

    it(`reports DirectAdmin's refusal with its error, result and details (${mode})`, async () => {
      const s = mode === 'json' ? sim : legacy;
      const client = createDirectAdminClient({ timeoutMs: 3000 });
      const err = await client.createDomain(as(s, 'alice', 'al1ce-secret'), 'bob.example').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DirectAdminError);
      const e = err as DirectAdminError;
      expect(e.message).toBe('DirectAdmin: Cannot create domain: That domain already exists on this server.');
      expect(e.code).toBe('upstream_refused');
      expect(e.serviceResponse).toMatchObject({
        error: 'Cannot create domain',
        result: 'That domain already exists on this server.',
      });
    });
  }

  it.each<[{ status?: number; shape?: 'legacy' | 'typed' }, string]>([
    [{ status: 400 }, 'legacy body, HTTP 400'],
    [{ status: 409, shape: 'typed' as const }, 'typed body, HTTP 409'],
    [{ shape: 'typed' as const }, 'typed body, HTTP 200'],
  ])('reads a JSON refusal sent with a non-2xx status (%j: %s)', async (jsonErrors, _label) => {
    const s = await startDirectAdminSim({ users: USERS, jsonErrors });
    try {
      const client = createDirectAdminClient({ timeoutMs: 3000 });
      const err = await client.createDomain(as(s, 'alice', 'al1ce-secret'), 'bob.example').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DirectAdminError);
      const e = err as DirectAdminError;
      expect(e.message).toBe('DirectAdmin: Cannot create domain: That domain already exists on this server.');
      expect(e.code).toBe('upstream_refused');
      expect(e.upstreamStatus).toBe(jsonErrors.status ?? 200);
      // A refusal is not a reason to think the panel is down, and the domain was not made.
      expect(await client.hasDomain(as(s, 'alice', 'al1ce-secret'), 'bob.example')).toBe(false);
    } finally {
      await s.close();
    }
  });

  it('decodes the entities DirectAdmin writes inside details', async () => {
    const client = createDirectAdminClient();
    const err = (await client
      .createDomain(as(legacy, 'alice', 'al1ce-secret'), 'not_a_domain')
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(err.serviceResponse?.result).toBe("'not_a_domain' is not a valid domain");
  });

  it("acts as a user with an admin's credentials (admin|user)", async () => {
    const client = createDirectAdminClient();
    const c = as(sim, 'admin', 'adm1n-secret', 'alice');
    expect(await client.listDomains(c)).toContain('alice.example');
    expect(sim.requests.at(-1)?.login).toBe('admin|alice');
    // A user cannot act as another.
    const err = (await client
      .listDomains(as(sim, 'bob', 'b0b-secret', 'alice'))
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(err.code).toBe('upstream_auth_failed');
  });

  for (const mode of ['json', 'url-encoded'] as const) {
    it(`lists the server's users for an admin login only (${mode})`, async () => {
      const s = mode === 'json' ? sim : legacy;
      const client = createDirectAdminClient();
      expect(await client.listUsers(as(s, 'admin', 'adm1n-secret'))).toEqual(['admin', 'alice', 'bob']);
      // A user's login, and an admin acting as a user, are refused the admin-level command: null, not an error.
      expect(await client.listUsers(as(s, 'bob', 'b0b-secret'))).toBeNull();
      expect(await client.listUsers(as(s, 'admin', 'adm1n-secret', 'alice'))).toBeNull();
      // A build that refuses with an HTML page (not its login page) is read the same way; a 5xx is an error.
      s.fail({ kind: 'html_error' });
      expect(await client.listUsers(as(s, 'bob', 'b0b-secret'))).toBeNull();
      s.fail({ kind: '5xx' });
      await expect(client.listUsers(as(s, 'admin', 'adm1n-secret'))).rejects.toThrow(/DirectAdmin: HTTP 500/);
      // Bad credentials stay bad credentials.
      const bad = (await client
        .listUsers(as(s, 'admin', 'wrong-password'))
        .catch((e: unknown) => e)) as DirectAdminError;
      expect(bad.code).toBe('upstream_auth_failed');
    });
  }

  it('refuses past the package limit with the reason', async () => {
    const client = createDirectAdminClient();
    const err = (await client
      .createDomain(as(sim, 'bob', 'b0b-secret'), 'second.example')
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(err.message).toContain('You have reached your domain limit');
  });

  it('treats HTTP 401 as bad credentials and never retries the login', async () => {
    const client = createDirectAdminClient();
    const c = as(sim, 'alice', 'wrong-password');
    const err = (await client.listDomains(c).catch((e: unknown) => e)) as DirectAdminError;
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/^DirectAdmin: the login was rejected \(HTTP 401\)/);
    expect(err.message).not.toContain('wrong-password');
    expect(sim.failedLogins()).toBe(1);
    // The same credentials again fail at once, without a request.
    const before = sim.requests.length;
    const again = (await client.createDomain(c, 'x.example').catch((e: unknown) => e)) as DirectAdminError;
    expect(again.message).toContain('not trying them again');
    expect(sim.requests.length).toBe(before);
    expect(sim.failedLogins()).toBe(1);
  });

  it('treats the HTML login page answered with 200 as bad credentials', async () => {
    let clock = 0;
    const client = createDirectAdminClient({ authFailureCooldownMs: 1000, now: () => clock });
    const c = as(loginPage, 'alice', 'wrong');
    const err = (await client.listDomains(c).catch((e: unknown) => e)) as DirectAdminError;
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.message).toContain('login page');
    expect(loginPage.failedLogins()).toBe(1);
    // After the cool-down the credentials may be tried once more; good ones are never held back.
    clock = 2000;
    await client.listDomains(c).catch(() => undefined);
    expect(loginPage.failedLogins()).toBe(2);
    expect(await client.listDomains(as(loginPage, 'alice', 'al1ce-secret'))).toEqual(['alice.example']);
  });

  it('times out on a slow panel, naming DirectAdmin', async () => {
    const client = createDirectAdminClient({ timeoutMs: 200 });
    sim.fail({ kind: 'slow', delayMs: 1500 });
    const err = (await client
      .listDomains(as(sim, 'alice', 'al1ce-secret'))
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(err.status).toBe(504);
    expect(err.message).toBe('DirectAdmin: timed out after 200 ms');
  });

  it('does not retry a create that failed mid-way', async () => {
    const client = createDirectAdminClient();
    sim.fail({ kind: '5xx' });
    const before = sim.requests.length;
    const err = (await client
      .createDomain(as(sim, 'alice', 'al1ce-secret'), 'retry.example')
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(err.message).toContain('HTTP 500');
    // The 5xx was answered before authentication, so nothing was logged; and no second attempt came.
    expect(sim.requests.length).toBe(before);
    expect(sim.domainsOf('alice').map((d) => d.name)).not.toContain('retry.example');
  });

  it('reports an HTML page that is not a login page, and an unreachable panel', async () => {
    const client = createDirectAdminClient();
    sim.fail({ kind: 'html_error' });
    const err = (await client.listDomains(as(sim, 'alice', 'al1ce-secret')).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('HTML page instead of an API answer');
    const down = (await client
      .listDomains({ baseUrl: 'http://127.0.0.1:1', username: 'a', password: 'secret-pw' })
      .catch((e: unknown) => e)) as DirectAdminError;
    expect(down.code).toBe('upstream_unreachable');
    expect(down.message).toMatch(/^DirectAdmin: could not connect/);
  });

  it('refuses a username that is not a DirectAdmin login without calling the panel', async () => {
    const client = createDirectAdminClient();
    const before = sim.requests.length;
    const err = (await client.listDomains(as(sim, 'a:b', 'x')).catch((e: unknown) => e)) as DirectAdminError;
    expect(err.message).toContain('admin|user');
    expect(sim.requests.length).toBe(before);
  });
});

describe('DirectAdmin answer parsing', () => {
  it('decodes entities, then the query string', () => {
    expect(decodeEntities('a&#61;b&amp;c&#x27;')).toBe("a=b&c'");
    const parsed = parseUrlEncoded(
      'error=1&text=Cannot%20create&details=It&#39;s%20taken%3Cbr%3Etry%20again&list[]=a&list[]=b',
    );
    expect(parsed.get('text')).toEqual(['Cannot create']);
    expect(parsed.get('list[]')).toEqual(['a', 'b']);
    expect(plainText(parsed.get('details')?.[0] ?? '')).toBe("It's taken\ntry again");
  });
});
