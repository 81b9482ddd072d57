import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/fixtures.ts';
import { describeNamedCatalogue } from '../../test/named-catalogue.ts';

const t = useTestApp();

describeNamedCatalogue(() => t, {
  path: '/api/regions',
  rule: 'cnv:regions',
  noField: 'regionNo',
  label: 'region',
  entity: 'regions',
});

describe('regions in use', () => {
  it('refuses to delete a region that something refers to, naming it', async () => {
    const admin = await t.tokenFor(['cnv']);
    const res = await t.inject({
      method: 'POST',
      url: '/api/regions',
      headers: { authorization: admin },
      payload: { name: 'EU' },
    });
    const id = res.json().data._id;
    t.c.usage.register('regions', async (rid) =>
      rid === id ? { what: 'proxies', count: 3, examples: ['1.1.1.1', '2.2.2.2'] } : null,
    );
    const del = await t.inject({ method: 'DELETE', url: `/api/regions/${id}`, headers: { authorization: admin } });
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toBe(
      'This region cannot be deleted: it is used by 3 proxies (1.1.1.1, 2.2.2.2, and 1 more)',
    );
    const still = await t.inject({ method: 'GET', url: `/api/regions/${id}`, headers: { authorization: admin } });
    expect(still.statusCode).toBe(200);
  });
});
