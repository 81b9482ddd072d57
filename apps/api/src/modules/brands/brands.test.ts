import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/fixtures.ts';
import { describeNamedCatalogue } from '../../test/named-catalogue.ts';

const t = useTestApp();

describeNamedCatalogue(() => t, {
  path: '/api/brands',
  rule: 'cnv:brands',
  noField: 'brandNo',
  label: 'brand',
  entity: 'brands',
  defaults: { trafficFallPercent: null, indexNow: false },
});

describe('brand list in-use parameters', () => {
  it('accepts the in-use parameters and validates them as ids', async () => {
    const admin = await t.tokenFor(['cnv']);
    const ok = await t.inject({
      method: 'GET',
      url: '/api/brands?checkInUseCloudId=00000000-0000-4000-8000-000000000001',
      headers: { authorization: admin },
    });
    expect(ok.statusCode).toBe(200);
    const bad = await t.inject({
      method: 'GET',
      url: '/api/brands?checkInUseCloudId=nope',
      headers: { authorization: admin },
    });
    expect(bad.statusCode).toBe(400);
    // Messages name fields as the forms do (never the key).
    expect(bad.json().message).toContain('Check in use cloud');
  });
});
