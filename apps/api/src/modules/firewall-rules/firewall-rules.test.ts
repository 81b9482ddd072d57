import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, auth: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const PATH = '/api/firewall-rules';
const rule = (over: object = {}) => ({
  name: 'Block bad bots',
  action: 'managed_challenge',
  expression: '(cf.client.bot) or (http.user_agent contains "curl")',
  defaultPriority: 10,
  ...over,
});

describe('/api/firewall-rules CRUD', () => {
  it('creates (201), reads, lists, updates with PUT and PATCH, deletes', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    const created = await call('POST', PATH, h, rule());
    expect(created.statusCode, created.body).toBe(201);
    const r = created.json().data;
    expect(r).toEqual({ _id: expect.any(String), firewallRuleNo: 1, ...rule() });
    expect((await call('GET', `${PATH}/${r._id}`, h)).json().data).toEqual(r);
    expect((await call('GET', `${PATH}?search=BAD`, h)).json().data).toEqual({ items: [r], itemsCount: 1 });

    const put = await call('PUT', `${PATH}/${r._id}`, h, { action: 'block', defaultPriority: 0 });
    expect(put.json().data).toMatchObject({ action: 'block', defaultPriority: 0, expression: r.expression });
    const patched = await call('PATCH', `${PATH}/${r._id}`, h, { expression: '  ip.geoip.country in {"CN" "RU"} ' });
    expect(patched.json().data.expression).toBe('ip.geoip.country in {"CN" "RU"}');

    const minimal = await call('POST', PATH, h, { name: 'Empty', action: 'skip', defaultPriority: 5 });
    expect(minimal.json().data.expression).toBe('');

    expect((await call('DELETE', `${PATH}/${r._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `${PATH}/${r._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Firewall rule not found');
  });

  it('validates name, action and default priority with field errors', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    const empty = await call('POST', PATH, h, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toMatchObject({
      name: 'Name is required',
      action: 'Action is required',
      defaultPriority: 'Default priority is required',
    });
    const cases: [object, string, string][] = [
      [{ action: 'allow' }, 'action', 'Action must be one of managed_challenge, block, js_challenge, skip, challenge'],
      [{ defaultPriority: '5' }, 'defaultPriority', 'Default priority must be a whole number'],
      [{ defaultPriority: 1.5 }, 'defaultPriority', 'Default priority must be a whole number'],
      [{ defaultPriority: -1 }, 'defaultPriority', 'Default priority must be 0 or more'],
      [{ defaultPriority: 2 ** 31 }, 'defaultPriority', 'Default priority must be at most 2147483647'],
      [{ expression: 'x'.repeat(4097) }, 'expression', 'Expression must be at most 4096 characters'],
    ];
    for (const [over, field, message] of cases) {
      const res = await call('POST', PATH, h, rule(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    for (const action of ['managed_challenge', 'block', 'js_challenge', 'skip', 'challenge']) {
      expect((await call('POST', PATH, h, rule({ name: action, action }))).statusCode).toBe(201);
    }
  });

  it('checks the expression before saving, with the message on the expression field', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    const cases: [string, string][] = [
      ['(http.host eq "a"', 'Unbalanced parenthesis: "(" at position 1 is never closed'],
      ['http.host eq "a")', 'Unbalanced parenthesis: ")" at position 17 has no opening "("'],
      ['http.host eq "a', 'Unclosed quote: the string starting at position 14 is never closed'],
      ['http.request.uri.paht eq "/"', 'Unknown field "http.request.uri.paht". Did you mean "http.request.uri.path"?'],
      ['ip.src.nope eq 1.1.1.1', 'Unknown field "ip.src.nope"'],
    ];
    for (const [expression, message] of cases) {
      const res = await call('POST', PATH, h, rule({ expression }));
      expect(res.statusCode, expression).toBe(400);
      expect(res.json().fields).toEqual({ expression: message });
      expect(res.json().message).toBe(`Expression: ${message}`);
    }
    const id = (await call('POST', PATH, h, rule())).json().data._id;
    const upd = await call('PATCH', `${PATH}/${id}`, h, { expression: 'cf.threat_scor gt 10' });
    expect(upd.statusCode).toBe(400);
    expect(upd.json().fields.expression).toBe('Unknown field "cf.threat_scor". Did you mean "cf.threat_score"?');
    expect((await call('GET', `${PATH}/${id}`, h)).json().data.expression).toBe(rule().expression);
  });

  it('refuses a duplicate name ignoring case with 409 and a field error', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    await call('POST', PATH, h, rule());
    const dup = await call('POST', PATH, h, rule({ name: 'BLOCK BAD BOTS' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      message: 'A firewall rule with this name already exists',
      fields: { name: 'A firewall rule with this name already exists' },
    });
  });

  it('pages 25 rules over 2 pages, in number order', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    for (let i = 1; i <= 25; i++) await call('POST', PATH, h, rule({ name: `Rule ${String(i).padStart(2, '0')}` }));
    const p2 = (await call('GET', `${PATH}?page=2`, h)).json().data;
    expect(p2.itemsCount).toBe(25);
    expect(p2.items.map((r: { name: string }) => r.name)).toEqual([
      'Rule 21',
      'Rule 22',
      'Rule 23',
      'Rule 24',
      'Rule 25',
    ]);
  });

  it('records create, update and delete in the audit log with a diff', async () => {
    const h = await t.tokenFor(['cnv:firewallRules']);
    const id = (await call('POST', PATH, h, rule())).json().data._id;
    await call('PATCH', `${PATH}/${id}`, h, { defaultPriority: 20 });
    await call('DELETE', `${PATH}/${id}`, h);
    const log = (
      await call('GET', `/api/audit-log?entity=firewall-rules&entityId=${id}`, await t.tokenFor(['cnv']))
    ).json().data;
    expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(log.items[1].diff).toEqual({ defaultPriority: { before: 10, after: 20 } });
  });
});
