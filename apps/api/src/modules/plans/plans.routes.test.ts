import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

describe('GET /api/plans/{id}', () => {
  it('finds a plan of any kind by its id, with its name and its page', async () => {
    const plans = t.c.repos.plans;
    const fleet = await plans.insertPlan('fleet', { selection: {}, createdBy: 'alice' });
    const imp = await plans.insertPlan('imports', { selection: {}, createdBy: 'alice' });
    const batch = await plans.insertPlan('launches', { selection: {}, createdBy: 'alice', state: 'planned' });
    const second = await plans.insertPlan('fleet', { selection: {}, createdBy: 'alice' });
    const authorization = await t.tokenFor(['cnv:domains']);
    const get = (id: string, h = authorization) =>
      t.inject({ method: 'GET', url: `/api/plans/${id}`, headers: { authorization: h } });
    for (const [p, name, path] of [
      [fleet, 'Fleet plan #1', `/fleet/${fleet.id}`],
      [imp, 'Import #1', `/imports/${imp.id}`],
      [batch, 'Launch batch #1', `/launches/batches/${batch.id}`],
      [second, 'Fleet plan #2', `/fleet/${second.id}`],
    ] as const) {
      const res = await get(p.id);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({ _id: p.id, kind: p.kind, planNo: p.planNo, name, state: p.state, path });
    }
    // An id in upper case is the same plan.
    expect((await get(imp.id.toUpperCase())).json().data._id).toBe(imp.id);
    const missing = await get('00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Plan not found');
    const bad = await get('not-an-id');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBeTruthy();
    // What an attacker sends instead of an id: a 4xx with a message (414 for an address too long), never a 500.
    for (const id of ['%00', `${fleet.id}%00`, '..%2F..%2Fapi%2Fusers', 'a'.repeat(5000), `${fleet.id}'--`]) {
      const res = await get(id);
      expect([400, 404, 414], id.slice(0, 40)).toContain(res.statusCode);
      expect(res.json().message, id.slice(0, 40)).toBeTruthy();
    }
    const dotted = await t.inject({ method: 'GET', url: `/api/plans/../users`, headers: { authorization } });
    expect(dotted.statusCode).not.toBe(200);
    // A burst of reads answers the same plan each time.
    const burst = await Promise.all(Array.from({ length: 20 }, () => get(fleet.id)));
    expect(new Set(burst.map((r) => `${r.statusCode}:${r.json().data?._id}`))).toEqual(new Set([`200:${fleet.id}`]));
    // No session, no plan.
    expect((await t.inject({ method: 'GET', url: `/api/plans/${fleet.id}` })).statusCode).toBe(401);
    // The plans change domains: the domains area's rule.
    expect((await get(fleet.id, await t.tokenFor(['cnv:brands']))).statusCode).toBe(403);
  });
});
