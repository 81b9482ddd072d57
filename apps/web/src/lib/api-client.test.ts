import { describe, expect, it } from 'vitest';
import { buildUrl } from './api-client.ts';

describe('buildUrl', () => {
  it('adds the prefix and the query, skipping empty values', () => {
    expect(buildUrl('/api/brands', { page: 2, search: '', checkInUseCloudId: undefined }, '')).toBe(
      '/api/brands?page=2',
    );
    expect(buildUrl('/api/regions', { page: 1, search: 'eu west' }, '/console')).toBe(
      '/console/api/regions?page=1&search=eu+west',
    );
    expect(buildUrl('/auth/me', undefined, '')).toBe('/auth/me');
    expect(buildUrl('/api/x', { flag: false, n: 0 }, '')).toBe('/api/x?flag=false&n=0');
  });
});
