import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IMPORT_SOURCE_RULES,
  LAUNCH_STAGE_RULES,
  RULES,
  RULE_LABELS,
  type ImportSource,
  type LaunchStageKey,
} from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { tokenMayCall } from '../modules/api-tokens/token-limits.ts';

// Enumerates every route the app registers, so routes added later are covered without touching this file.
let t: TestApp;
let noRules: string;
let tokens: Map<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  noRules = await t.tokenFor([]);
  tokens = new Map();
  for (const r of RULES) tokens.set(r, await t.tokenFor([r]));
});
afterAll(async () => t?.close());

const fill = (url: string) => url.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000').replace(/\*$/, 'x');

describe('route permissions', () => {
  it('knows the routes', () => {
    expect(t.app.registeredRoutes.length).toBeGreaterThan(10);
  });

  it('every /api route requires an area rule', () => {
    const isRule = (a: unknown) => (RULES as readonly unknown[]).includes(a);
    const bad = t.app.registeredRoutes.filter(
      (r) => r.url.startsWith('/api/') && !(typeof r.access === 'string' ? isRule(r.access) : r.access.every(isRule)),
    );
    expect(bad).toEqual([]);
  });

  it('lets the areas whose forms pick an item read that list, but never write it', async () => {
    const domainsOnly = tokens.get('cnv:domains')!;
    for (const url of [
      '/api/servers',
      '/api/brands',
      '/api/clouds',
      '/api/regions',
      '/api/domain-registrators',
      '/api/firewall-rules',
    ]) {
      expect((await t.inject({ method: 'GET', url, headers: { authorization: domainsOnly } })).statusCode, url).toBe(
        200,
      );
      const write = await t.inject({ method: 'POST', url, headers: { authorization: domainsOnly }, payload: {} });
      expect(write.statusCode, url).toBe(403);
    }
    expect(
      (await t.inject({ method: 'GET', url: '/api/users', headers: { authorization: domainsOnly } })).statusCode,
    ).toBe(403);
    const proxiesOnly = tokens.get('cnv:proxies')!;
    expect(
      (await t.inject({ method: 'GET', url: '/api/regions', headers: { authorization: proxiesOnly } })).statusCode,
    ).toBe(200);
    expect(
      (await t.inject({ method: 'GET', url: '/api/servers', headers: { authorization: proxiesOnly } })).statusCode,
    ).toBe(403);
  });

  it('answers 401 without a token, 403 without the rule, and lets cnv and the area rule through', async () => {
    const failures: string[] = [];
    for (const r of t.app.registeredRoutes) {
      if (r.access === 'public') continue;
      const url = fill(r.url);
      const method = r.method as 'GET';
      const anon = await t.inject({ method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : {} });
      if (anon.statusCode !== 401) failures.push(`${r.method} ${r.url} without token: ${anon.statusCode}`);
      if (r.access === 'authenticated') continue;

      const allowed: readonly string[] = typeof r.access === 'string' ? [r.access] : r.access;
      // A route open to every area rule (dashboard, search) has no other rule to refuse: only no rules.
      const other = RULES.find((x) => !allowed.includes(x) && x !== 'cnv');
      const refused: (readonly [string, string])[] = [['no rules', noRules]];
      if (other) refused.push([other, tokens.get(other)!]);
      for (const [label, header] of refused) {
        const res = await t.inject({ method, url, headers: { authorization: header } });
        if (res.statusCode !== 403) failures.push(`${r.method} ${r.url} with ${label}: ${res.statusCode}`);
      }
      for (const rule of ['cnv', ...allowed]) {
        const res = await t.inject({ method, url, headers: { authorization: tokens.get(rule)! } });
        if (res.statusCode === 401 || res.statusCode === 403)
          failures.push(`${r.method} ${r.url} with ${rule}: ${res.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("refuses each launch stage and import source to whoever lacks its area's rule (decision 064)", async () => {
    const none = '00000000-0000-4000-8000-000000000000';
    // Settings under which every stage acts; the references need not exist for a stage that is refused.
    const launch = {
      domainName: 'matrix-rules.com',
      serverId: none,
      cloudId: none,
      registration: { domainRegistratorId: none, register: true, contactId: none, years: 1 },
      content: { type: 'copy', fromDomainId: none },
      yandexWebmasterAccountId: none,
      googleSearchAccountId: none,
      verification: 'DNS',
    };
    const without = (rule: string) => t.tokenFor(RULES.filter((r) => r !== 'cnv' && r !== rule));
    const failures: string[] = [];
    for (const [key, { rule }] of Object.entries(LAUNCH_STAGE_RULES) as [LaunchStageKey, { rule: string }][]) {
      const auth = await without(rule);
      const post = (dryRun: boolean) =>
        t.inject({
          method: 'POST',
          url: '/api/launches',
          headers: { authorization: auth },
          payload: { ...launch, dryRun },
        });
      const planned = await post(true);
      const needs = `Needs the ${RULE_LABELS[rule as keyof typeof RULE_LABELS]} area`;
      if (planned.statusCode === 200) {
        const blockers = planned.json().data.blockers as { stage: string; message: string }[];
        if (!blockers.some((b) => b.stage === key && b.message === needs))
          failures.push(`plan without ${rule}: no blocker on ${key}`);
      } else if (planned.statusCode !== 403) failures.push(`plan without ${rule}: ${planned.statusCode}`);
      const started = await post(false);
      if (started.statusCode !== 403) failures.push(`launch without ${rule}: ${started.statusCode}`);
    }
    for (const [source, rule] of Object.entries(IMPORT_SOURCE_RULES) as [ImportSource, string][]) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/imports',
        headers: { authorization: await without(rule) },
        payload: { source, sourceId: none },
      });
      if (res.statusCode !== 403) failures.push(`import from ${source} without ${rule}: ${res.statusCode}`);
      // With its rule (and the domains rule every import needs) it gets as far as the missing source.
      const ok = await t.inject({
        method: 'POST',
        url: '/api/imports',
        headers: { authorization: await t.tokenFor([rule, 'cnv:domains']) },
        payload: { source, sourceId: none },
      });
      if (ok.statusCode !== 400) failures.push(`import from ${source} with ${rule}: ${ok.statusCode}`);
    }
    expect(failures).toEqual([]);
  });

  it('lets an API token call what its rules allow, and never what no token may (decision 042)', async () => {
    const apiToken = async (rules: string[]) => {
      const res = await t.inject({
        method: 'POST',
        url: '/auth/tokens',
        headers: { authorization: tokens.get('cnv')! },
        payload: { name: `matrix ${rules.join(' ')}`, rules, expiresInDays: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
      return `Bearer ${res.json().data.token}`;
    };
    const all = await apiToken(['cnv']);
    const brandsOnly = await apiToken(['cnv:brands']);
    const failures: string[] = [];
    let forbidden = 0;
    for (const r of t.app.registeredRoutes) {
      if (r.access === 'public') continue;
      const url = fill(r.url);
      const method = r.method as 'GET';
      const res = await t.inject({ method, url, headers: { authorization: all } });
      if (!tokenMayCall(r.method, r.url)) {
        forbidden++;
        if (res.statusCode !== 403 || res.json().code !== 'token_forbidden')
          failures.push(`${r.method} ${r.url} with a token: ${res.statusCode}, expected 403 token_forbidden`);
        continue;
      }
      if (res.statusCode === 401 || res.statusCode === 403)
        failures.push(`${r.method} ${r.url} with a cnv token: ${res.statusCode}`);
      const allowed: readonly string[] =
        r.access === 'authenticated' ? [] : typeof r.access === 'string' ? [r.access] : r.access;
      if (r.access !== 'authenticated' && !allowed.includes('cnv:brands')) {
        const narrow = await t.inject({ method, url, headers: { authorization: brandsOnly } });
        if (narrow.statusCode !== 403)
          failures.push(`${r.method} ${r.url} with a cnv:brands token: ${narrow.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
    expect(forbidden).toBeGreaterThan(10);
  });

  it('lets a session that must set up two-factor call only the setup routes', async () => {
    const role = await t.c.repos.roles.insert({ name: 'matrix-2fa', rules: ['cnv'], requireTwoFactor: true });
    await t.tokenFor([], { username: 'matrix-setup' });
    const user = (await t.c.repos.users.findByUsername('matrix-setup'))!;
    await t.c.repos.users.setRoles(user.id, [role.id]);
    const header = await t.login('matrix-setup', 'correct horse battery');
    const open = new Set([
      'GET /auth/me',
      'GET /auth/two-factor',
      'POST /auth/two-factor/setup',
      'POST /auth/two-factor/enable',
    ]);
    const failures: string[] = [];
    for (const r of t.app.registeredRoutes) {
      if (r.access === 'public' || `${r.method} ${r.url}` === 'POST /auth/logout') continue;
      const res = await t.inject({ method: r.method as 'GET', url: fill(r.url), headers: { authorization: header } });
      const blocked = res.statusCode === 403 && res.json().code === 'two_factor_setup_required';
      if (blocked === open.has(`${r.method} ${r.url}`)) failures.push(`${r.method} ${r.url}: ${res.statusCode}`);
    }
    expect(failures).toEqual([]);
  });

  it('refuses to register an /api route that declares no access', async () => {
    const { default: Fastify } = await import('fastify');
    const { installAuthGuard } = await import('./auth-guard.ts');
    const app = Fastify();
    installAuthGuard(app, t.c.callers);
    expect(() => app.get('/api/oops', async () => 'x')).toThrow(/does not declare its access/);
    await app.close();
  });
});
