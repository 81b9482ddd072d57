import { describe, expect, it } from 'vitest';
import type { TestApp } from './harness.ts';

/** The shared contract of a simple named list (brands, regions): CRUD, validation, uniqueness, search, paging, audit. */
export function describeNamedCatalogue(
  getApp: () => TestApp,
  o: {
    path: string;
    rule: string;
    noField: string;
    label: string;
    entity: string;
    /** The entity's other fields as a new one has them (a brand's settings). */
    defaults?: Record<string, unknown>;
  },
) {
  const Label = o.label[0]!.toUpperCase() + o.label.slice(1);
  describe(`${o.path} CRUD`, () => {
    it('creates (201), reads, updates with PATCH and PUT, lists and deletes', async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      const created = await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: '  Alpha  ' } });
      expect(created.statusCode).toBe(201);
      const e = created.json().data;
      expect(e).toMatchObject({ name: 'Alpha', [o.noField]: 1 });
      expect(e._id).toMatch(/^[0-9a-f-]{36}$/);

      expect((await t.inject({ method: 'GET', url: `${o.path}/${e._id}`, headers: h })).json().data.name).toBe('Alpha');
      const patched = await t.inject({
        method: 'PATCH',
        url: `${o.path}/${e._id}`,
        headers: h,
        payload: { name: 'Beta' },
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().data).toMatchObject({ _id: e._id, name: 'Beta', [o.noField]: 1 });
      const put = await t.inject({ method: 'PUT', url: `${o.path}/${e._id}`, headers: h, payload: { name: 'Gamma' } });
      expect(put.json().data.name).toBe('Gamma');
      const empty = await t.inject({ method: 'PATCH', url: `${o.path}/${e._id}`, headers: h, payload: {} });
      expect(empty.json().data.name).toBe('Gamma');

      const list = await t.inject({ method: 'GET', url: o.path, headers: h });
      expect(list.json()).toEqual({
        data: { items: [{ _id: e._id, [o.noField]: 1, name: 'Gamma', ...o.defaults }], itemsCount: 1 },
      });

      const del = await t.inject({ method: 'DELETE', url: `${o.path}/${e._id}`, headers: h });
      expect(del.statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: `${o.path}/${e._id}`, headers: h })).statusCode).toBe(404);
      expect((await t.inject({ method: 'DELETE', url: `${o.path}/${e._id}`, headers: h })).statusCode).toBe(404);
    });

    it('validates: name required, trimmed, at most 200 characters; ids must be UUIDs', async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      for (const payload of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 42 }]) {
        const res = await t.inject({ method: 'POST', url: o.path, headers: h, payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().fields.name).toBeTruthy();
        expect(res.json().code).toBe('validation_error');
      }
      expect(
        (await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: 'x'.repeat(200) } })).statusCode,
      ).toBe(201);
      expect((await t.inject({ method: 'GET', url: `${o.path}/not-a-uuid`, headers: h })).statusCode).toBe(400);
      expect((await t.inject({ method: 'GET', url: `${o.path}?page=0`, headers: h })).statusCode).toBe(400);
      expect((await t.inject({ method: 'GET', url: `${o.path}?page=abc`, headers: h })).statusCode).toBe(400);
    });

    it('refuses a duplicate name ignoring case with 409 and a field error, on create and update', async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: 'Europe' } });
      const dup = await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: 'europe' } });
      expect(dup.statusCode).toBe(409);
      expect(dup.json()).toMatchObject({
        message: `A ${o.label} with this name already exists`,
        fields: { name: expect.any(String) },
      });
      const other = (await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: 'Asia' } })).json()
        .data;
      const upd = await t.inject({
        method: 'PATCH',
        url: `${o.path}/${other._id}`,
        headers: h,
        payload: { name: 'EUROPE' },
      });
      expect(upd.statusCode).toBe(409);
      expect((await t.inject({ method: 'GET', url: `${o.path}/${other._id}`, headers: h })).json().data.name).toBe(
        'Asia',
      );
    });

    it('searches by name ignoring case, treating % and _ literally, and pages 25 items over 2 pages', async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      for (let i = 1; i <= 25; i++) {
        await t.inject({
          method: 'POST',
          url: o.path,
          headers: h,
          payload: { name: `Item ${String(i).padStart(2, '0')}` },
        });
      }
      await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: '100% Other_thing' } });
      const p1 = (await t.inject({ method: 'GET', url: `${o.path}?page=1`, headers: h })).json().data;
      const p2 = (await t.inject({ method: 'GET', url: `${o.path}?page=2`, headers: h })).json().data;
      expect(p1.itemsCount).toBe(26);
      expect(p1.items).toHaveLength(20);
      expect(p2.items).toHaveLength(6);
      expect(p2.items[0].name).toBe('Item 21');

      const s = (await t.inject({ method: 'GET', url: `${o.path}?search=ITEM%202`, headers: h })).json().data;
      expect(s.items.map((x: { name: string }) => x.name)).toEqual([
        'Item 20',
        'Item 21',
        'Item 22',
        'Item 23',
        'Item 24',
        'Item 25',
      ]);
      expect(s.itemsCount).toBe(6);
      const pct = (await t.inject({ method: 'GET', url: `${o.path}?search=%25`, headers: h })).json().data;
      expect(pct.items.map((x: { name: string }) => x.name)).toEqual(['100% Other_thing']);
      const searched2 = (await t.inject({ method: 'GET', url: `${o.path}?search=item&page=2`, headers: h })).json()
        .data;
      expect(searched2.items).toHaveLength(5);
    });

    it('records create, update and delete in the audit log with a diff', async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      const id = (await t.inject({ method: 'POST', url: o.path, headers: h, payload: { name: 'One' } })).json().data
        ._id;
      await t.inject({ method: 'PATCH', url: `${o.path}/${id}`, headers: h, payload: { name: 'Two' } });
      await t.inject({ method: 'DELETE', url: `${o.path}/${id}`, headers: h });
      const admin = { authorization: await t.tokenFor(['cnv']) };
      const log = (
        await t.inject({ method: 'GET', url: `/api/audit-log?entity=${o.entity}&entityId=${id}`, headers: admin })
      ).json().data;
      expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
      expect(log.items[1].diff).toEqual({ name: { before: 'One', after: 'Two' } });
      expect(log.items[0].username).toMatch(/^user/);
    });

    it(`uses ${Label} in its not-found message`, async () => {
      const t = getApp();
      const h = { authorization: await t.tokenFor([o.rule]) };
      const res = await t.inject({ method: 'GET', url: `${o.path}/00000000-0000-4000-8000-000000000000`, headers: h });
      expect(res.json()).toMatchObject({ message: `${Label} not found`, code: 'not_found' });
    });
  });
}
