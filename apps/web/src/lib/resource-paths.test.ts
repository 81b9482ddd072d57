import { describe, expect, it } from 'vitest';
import { resourcePaths } from './resource-paths.ts';

describe('resourcePaths', () => {
  it('builds the list, create, edit and delete routes', () => {
    const paths = resourcePaths('brands');
    expect(paths.list).toBe('/brands');
    expect(paths.create).toBe('/brands/create');
    expect(paths.edit('abc')).toBe('/brands/abc');
    expect(paths.delete('abc')).toBe('/brands/abc/delete');
    expect(resourcePaths('/firewall-rules/').list).toBe('/firewall-rules');
  });
});
