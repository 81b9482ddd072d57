import { describe, expect, it } from 'vitest';
import { FleetActionSchema, FleetPlanInputSchema } from '@fleetdesk/contract';
import { recordName, redirectRulesFor } from './fleet.actions.ts';

describe('fleet action helpers', () => {
  it('names records as the zone holds them', () => {
    expect(recordName('@', 'example.com')).toBe('example.com');
    expect(recordName('www', 'example.com')).toBe('www.example.com');
    expect(recordName('WWW.example.com.', 'example.com')).toBe('www.example.com');
    expect(recordName('{domain}', 'example.com')).toBe('example.com');
    expect(recordName('mail.{domain}', 'example.com')).toBe('mail.example.com');
    // A name of another domain is taken as relative, never as a record of some other zone.
    expect(recordName('example.org', 'example.com')).toBe('example.org.example.com');
  });

  it('fills {domain} in every text of a redirect template', () => {
    const [rule] = redirectRulesFor(
      [
        {
          ruleExpression: 'http.host eq "{domain}"',
          targetUrlValue: 'https://www.{domain}/{domain}',
          description: 'to www.{domain}',
          statusCode: 301,
          preserveQueryString: true,
        },
      ],
      'shop.test',
    );
    expect(rule).toMatchObject({
      ruleExpression: 'http.host eq "shop.test"',
      targetUrlValue: 'https://www.shop.test/shop.test',
      description: 'to www.shop.test',
    });
  });

  it('takes a selection as ids or as the filter, never both or neither', () => {
    const action = { kind: 'purge_cache' };
    const id = '00000000-0000-4000-8000-000000000001';
    expect(FleetPlanInputSchema.safeParse({ selection: { ids: [id] }, action }).success).toBe(true);
    const filter = FleetPlanInputSchema.safeParse({
      selection: { filter: { hasZone: true, status: 'active' } },
      action,
    });
    expect(filter.success && filter.data.selection).toEqual({
      filter: { search: '', hasZone: true, status: 'active' },
    });
    expect(FleetPlanInputSchema.safeParse({ selection: { ids: [id], filter: {} }, action }).success).toBe(false);
    expect(FleetPlanInputSchema.safeParse({ selection: {}, action }).success).toBe(false);
    expect(FleetActionSchema.safeParse({ kind: 'dns_set', type: 'a', name: '@', content: '192.0.2.1' }).data).toEqual({
      kind: 'dns_set',
      type: 'A',
      name: '@',
      content: '192.0.2.1',
    });
  });
});
