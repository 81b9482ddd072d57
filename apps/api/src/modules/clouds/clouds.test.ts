import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let h: { authorization: string };
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.reset();
  h = { authorization: await t.tokenFor(['cnv:clouds', 'cnv:regions']) };
});

const post = (payload: unknown) =>
  t.inject({ method: 'POST', url: '/api/clouds', headers: h, payload: payload as object });

describe('clouds', () => {
  it('creates with a proxy region, masks every secret, and keeps secrets on a masked or omitted update', async () => {
    const region = (await t.inject({ method: 'POST', url: '/api/regions', headers: h, payload: { name: 'EU' } })).json()
      .data;
    const res = await post({
      email: ' Ops@Example.com ',
      password: 'pw-1',
      token: 'tok-1',
      globalAPIKey: 'gk-1',
      proxyRegionId: region._id,
    });
    expect(res.statusCode).toBe(201);
    const c = res.json().data;
    expect(c).toMatchObject({
      cloudNo: 1,
      email: 'Ops@Example.com',
      password: SECRET_MASK,
      token: SECRET_MASK,
      globalAPIKey: SECRET_MASK,
      emailPassword: null,
      proxyRegion: { _id: region._id, name: 'EU' },
    });

    const upd = await t.inject({
      method: 'PATCH',
      url: `/api/clouds/${c._id}`,
      headers: h,
      payload: { email: 'ops@example.com', password: SECRET_MASK, token: '', emailPassword: 'ep-2' },
    });
    expect(upd.statusCode).toBe(200);
    const creds = await t.c.services.clouds.credentials(c._id);
    expect(creds).toMatchObject({ token: 'tok-1', globalAPIKey: 'gk-1' });
    const reveal = async (field: string) =>
      (await t.inject({ method: 'POST', url: `/api/clouds/${c._id}/reveal`, headers: h, payload: { field } })).json()
        .data.value;
    expect(await reveal('password')).toBe('pw-1');
    expect(await reveal('emailPassword')).toBe('ep-2');

    const cleared = await t.inject({
      method: 'PUT',
      url: `/api/clouds/${c._id}`,
      headers: h,
      payload: { token: null, proxyRegionId: null },
    });
    expect(cleared.json().data).toMatchObject({ token: null, proxyRegion: null, globalAPIKey: SECRET_MASK });
  });

  it('validates email, the region reference and reveal fields', async () => {
    for (const payload of [{}, { email: '' }, { email: 'not-an-email' }]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().fields.email).toBeTruthy();
    }
    const missingRegion = await post({ email: 'a@b.co', proxyRegionId: '00000000-0000-4000-8000-000000000000' });
    expect(missingRegion.statusCode).toBe(400);
    expect(missingRegion.json().fields.proxyRegionId).toBe('The proxy region does not exist');
    const c = (await post({ email: 'a@b.co' })).json().data;
    const bad = await t.inject({
      method: 'POST',
      url: `/api/clouds/${c._id}/reveal`,
      headers: h,
      payload: { field: 'email' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses a duplicate email with 409', async () => {
    await post({ email: 'a@b.co' });
    const dup = await post({ email: 'A@B.CO' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      message: 'A cloud with this email already exists',
      fields: { email: expect.any(String) },
    });
  });

  it('searches by email and pages', async () => {
    for (let i = 0; i < 22; i++) await post({ email: `user${i}@zone${i % 2}.test` });
    const p2 = (await t.inject({ method: 'GET', url: '/api/clouds?page=2', headers: h })).json().data;
    expect(p2.itemsCount).toBe(22);
    expect(p2.items).toHaveLength(2);
    const s = (await t.inject({ method: 'GET', url: '/api/clouds?search=ZONE1', headers: h })).json().data;
    expect(s.itemsCount).toBe(11);
  });

  it('accepts the in-use parameters (flags come with domains)', async () => {
    await post({ email: 'a@b.co' });
    const res = await t.inject({
      method: 'GET',
      url: '/api/clouds?checkInUseBrandId=00000000-0000-4000-8000-000000000001&checkInUseBrandIdDomainId=00000000-0000-4000-8000-000000000002',
      headers: h,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.items[0].isInUseBrandId).toBe(false);
  });

  it('a region used by a cloud cannot be deleted', async () => {
    const region = (await t.inject({ method: 'POST', url: '/api/regions', headers: h, payload: { name: 'US' } })).json()
      .data;
    await post({ email: 'a@b.co', proxyRegionId: region._id });
    const del = await t.inject({ method: 'DELETE', url: `/api/regions/${region._id}`, headers: h });
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toBe('This region cannot be deleted: it is used by 1 cloud (a@b.co)');
  });

  it('audits secret changes as redacted', async () => {
    const c = (await post({ email: 'a@b.co', token: 'first-token' })).json().data;
    await t.inject({ method: 'PATCH', url: `/api/clouds/${c._id}`, headers: h, payload: { token: 'second-token' } });
    const admin = { authorization: await t.tokenFor(['cnv']) };
    const log = (
      await t.inject({ method: 'GET', url: `/api/audit-log?entity=clouds&entityId=${c._id}`, headers: admin })
    ).json().data;
    expect(log.items[0].diff).toEqual({ token: { before: '[redacted]', after: '[redacted]' } });
    expect(JSON.stringify(log)).not.toMatch(/first-token|second-token/);
  });
});

describe('cloud account id', () => {
  const ACCOUNT = '0123456789abcdef0123456789abcdef';
  it('is kept when set by the operator, validated, and forgotten when the credentials change', async () => {
    const c = (await post({ email: 'acct@example.com', token: 'tok', accountId: ACCOUNT })).json().data;
    expect(c.accountId).toBe(ACCOUNT);
    const bad = await post({ email: 'other@example.com', accountId: 'nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.accountId).toMatch(/32 hexadecimal/);

    const patch = (payload: object) =>
      t.inject({ method: 'PATCH', url: `/api/clouds/${c._id}`, headers: h, payload }).then((r) => r.json().data);
    // A form re-saving the same email and id keeps it.
    expect((await patch({ email: 'acct@example.com', accountId: ACCOUNT, token: SECRET_MASK })).accountId).toBe(
      ACCOUNT,
    );
    // New credentials with the old id re-sent: the id may belong to the old account, so it is dropped.
    expect((await patch({ token: 'new-token', accountId: ACCOUNT })).accountId).toBeNull();
    // New credentials with an id named on purpose: kept.
    expect((await patch({ token: 'newer-token', accountId: ACCOUNT })).accountId).toBe(ACCOUNT);
    expect((await patch({ accountId: '' })).accountId).toBeNull();
  });
});
