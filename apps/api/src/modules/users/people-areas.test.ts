import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PICKER_READERS, type Rule } from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// Each area of this issue, with the rule that opens it. A role holding only that rule works in its own
// area and gets 403 in every other one.
const AREAS = [
  { rule: 'cnv:users', paths: ['/api/users'], create: { path: '/api/users', body: {} } },
  { rule: 'cnv:roles', paths: ['/api/roles'], create: { path: '/api/roles', body: { name: 'R', rules: [] } } },
  {
    rule: 'cnv:firewallRules',
    paths: ['/api/firewall-rules'],
    create: { path: '/api/firewall-rules', body: { name: 'F', action: 'block', defaultPriority: 1 } },
  },
  {
    rule: 'cnv:domainRegistrators',
    paths: ['/api/domain-registrators', '/api/domain-registrators-contacts'],
    create: { path: '/api/domain-registrators-contacts', body: { name: 'C' } },
  },
  { rule: 'cnv', paths: ['/api/audit-log'], create: null },
] as const;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('people and catalogue areas', () => {
  for (const area of AREAS.filter((a) => a.rule !== 'cnv')) {
    it(`${area.rule} is allowed in its own area and refused in the others`, async () => {
      const auth = await t.tokenFor([area.rule]);
      for (const path of area.paths) {
        const res = await t.inject({ method: 'GET', url: path, headers: { authorization: auth } });
        expect(res.statusCode, path).toBe(200);
      }
      if (area.create) {
        const res = await t.inject({
          method: 'POST',
          url: area.create.path,
          headers: { authorization: auth },
          payload: area.create.body,
        });
        // Allowed through the guard: a success, or a validation error for the deliberately empty user.
        expect([201, 400], res.body).toContain(res.statusCode);
      }
      for (const other of AREAS.filter((a) => a.rule !== area.rule)) {
        // Areas whose forms pick from another may read its list (roles for the users form), never write it.
        const reads = (PICKER_READERS[other.rule as Rule] ?? []).includes(area.rule as Rule);
        for (const path of reads ? [] : other.paths) {
          const res = await t.inject({ method: 'GET', url: path, headers: { authorization: auth } });
          expect(res.statusCode, `${area.rule} on ${path}`).toBe(403);
          expect(res.json().message).toBe(`You do not have permission for this area (${other.rule})`);
        }
        if (other.create) {
          const res = await t.inject({
            method: 'POST',
            url: other.create.path,
            headers: { authorization: auth },
            payload: other.create.body,
          });
          expect(res.statusCode, `${area.rule} posting to ${other.create.path}`).toBe(403);
        }
      }
    });
  }

  it('cnv opens every area, including the audit log', async () => {
    const auth = await t.tokenFor(['cnv']);
    for (const path of AREAS.flatMap((a) => a.paths)) {
      const res = await t.inject({ method: 'GET', url: path, headers: { authorization: auth } });
      expect(res.statusCode, path).toBe(200);
    }
  });
});
