import { describe, expect, it } from 'vitest';
import { matchPath } from 'react-router';
import { CREATE_ITEMS, createItemsFor } from './create-menu-items.ts';
import { areasFor } from './router.tsx';

describe("the header's create menu", () => {
  it('offers an administrator everything, launching a site first', () => {
    const labels = createItemsFor(['cnv']).map((i) => i.label);
    expect(labels).toEqual(CREATE_ITEMS.map((i) => i.label));
    expect(labels[0]).toBe('Launch a site');
  });

  it("offers only what the user's rules allow", () => {
    expect(createItemsFor(['cnv:domains']).map((i) => i.label)).toEqual([
      'Launch a site',
      'Create Domain',
      'Create DNS Template',
      'Create Launch Profile',
    ]);
    expect(createItemsFor(['cnv:servers', 'cnv:users']).map((i) => i.label)).toEqual(['Create Server', 'Create User']);
    // A rule that creates none of them (and no rules at all): an empty menu, which the header does not show.
    expect(createItemsFor(['cnv:regions'])).toEqual([]);
    expect(createItemsFor([])).toEqual([]);
  });

  it('links each item to a route the router serves', async () => {
    for (const item of CREATE_ITEMS) {
      const routes = (await Promise.all(areasFor(item.to).map((a) => a.load()))).flat();
      // Its own route, not an edit page's `:id` taking "create" for an id.
      const served = routes.some((r) => r.path && !r.path.includes(':') && matchPath(`/${r.path}`, item.to));
      expect(served, item.to).toBe(true);
    }
  }, 60_000);
});
