import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COUNTRIES } from '@fleetdesk/contract';
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
const PATH = '/api/domain-registrators-contacts';
const contact = (over: object = {}) => ({
  name: 'Acme registrant',
  firstName: 'Jane',
  lastName: 'Doe',
  address1: '1 Main Street',
  city: 'Springfield',
  state: 'IL',
  postalCode: '62701',
  country: 'US',
  phone: '+1.2175550100',
  email: 'jane@example.com',
  ...over,
});

describe('/api/domain-registrators-contacts CRUD', () => {
  it('creates (201), reads, lists, updates with PUT and PATCH, deletes', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const created = await call('POST', PATH, h, contact());
    expect(created.statusCode, created.body).toBe(201);
    const c = created.json().data;
    expect(c).toEqual({ _id: expect.any(String), domainRegistratorContactNo: 1, ...contact() });
    expect((await call('GET', `${PATH}/${c._id}`, h)).json().data).toEqual(c);
    expect((await call('GET', `${PATH}?search=jane@`, h)).json().data).toEqual({ items: [c], itemsCount: 1 });
    const put = await call('PUT', `${PATH}/${c._id}`, h, { city: 'Chicago', country: 'gb' });
    expect(put.json().data).toMatchObject({ city: 'Chicago', country: 'GB', name: 'Acme registrant' });
    const cleared = await call('PATCH', `${PATH}/${c._id}`, h, { phone: '', email: null, state: '  ' });
    expect(cleared.json().data).toMatchObject({ phone: null, email: null, state: null });

    const minimal = await call('POST', PATH, h, { name: 'Only a name' });
    expect(minimal.json().data).toMatchObject({ name: 'Only a name', email: null, phone: null, country: null });

    expect((await call('DELETE', `${PATH}/${c._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `${PATH}/${c._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Contact not found');
  });

  it('requires a name, and checks email, phone and country when given', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    expect((await call('POST', PATH, h, { name: '' })).json().fields).toEqual({ name: 'Name is required' });
    const cases: [object, string, string][] = [
      [{ email: 'jane@' }, 'email', 'Email must be a valid email address'],
      [{ phone: '2175550100' }, 'phone', 'Phone must look like +NNN.NNNNNNNNNN'],
      [{ phone: '+1 217 555 0100' }, 'phone', 'Phone must look like +NNN.NNNNNNNNNN'],
      [{ phone: '+1234.5550100' }, 'phone', 'Phone must look like +NNN.NNNNNNNNNN'],
      [{ phone: '+1.123' }, 'phone', 'Phone must look like +NNN.NNNNNNNNNN'],
      [{ country: 'XX' }, 'country', 'Country must be a two-letter ISO 3166-1 code'],
      [{ country: 'USA' }, 'country', 'Country must be a two-letter ISO 3166-1 code'],
      [{ country: 5 }, 'country', 'Country must be a two-letter ISO 3166-1 code'],
    ];
    for (const [over, field, message] of cases) {
      const res = await call('POST', PATH, h, contact(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    for (const phone of ['+7.9161234567', '+380.441234567', '+44.20123456789012']) {
      expect((await call('POST', PATH, h, contact({ phone }))).statusCode, phone).toBe(201);
    }
    expect(COUNTRIES).toHaveLength(249);
  });

  it('records create, update and delete in the audit log with a diff', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const id = (await call('POST', PATH, h, contact())).json().data._id;
    await call('PATCH', `${PATH}/${id}`, h, { phone: '+44.2071234567' });
    await call('DELETE', `${PATH}/${id}`, h);
    const log = (
      await call('GET', `/api/audit-log?entity=domain-registrators-contacts&entityId=${id}`, await t.tokenFor(['cnv']))
    ).json().data;
    expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(log.items[1].diff).toEqual({ phone: { before: '+1.2175550100', after: '+44.2071234567' } });
  });
});
