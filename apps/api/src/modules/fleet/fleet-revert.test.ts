import { describe, expect, it } from 'vitest';
import { FLEET_MESSAGES, FLEET_REVERT_MESSAGES, type FleetItem, type FleetPlan } from '@fleetdesk/contract';
import { sql } from 'drizzle-orm';
import { useFleetApp } from '../../test/fixtures.ts';

// Undo of a fleet run (issue 44): each kind of change made, reverted, and read back through the simulator; a
// domain changed in between is reported and left alone unless ticked; a revert is itself revertible.
const { t, sim, call, create, unique, waitPlan } = useFleetApp({ FLEET_ACCOUNT_CONCURRENCY: '2' });

async function account() {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  sim.addAccount({ email, token });
  return (await create('clouds', { email, token }))._id;
}
async function domain(cloudId: string) {
  const name = `${unique('undo')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', cloudId });
  const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
  expect(res.statusCode, res.body).toBe(200);
  return { id: d._id, name, zoneId: res.json().data.cloudZoneId as string };
}
const zone = (id: string) => sim.state.zones.get(id)!;
/** The zone's records as a provider-side fact, ids left out (a record put back is a new record). */
const recordsOf = (zoneId: string) =>
  [...zone(zoneId).dnsRecords.values()]
    .map((r) => `${r.type} ${r.name} ${r.content} ttl=${r.ttl} proxied=${r.proxied}`)
    .sort();

const ENDED = ['completed', 'completed_with_failures', 'failed', 'cancelled'];
async function planned(res: { statusCode: number; body: string; json(): { data: FleetPlan } }) {
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed']);
}
const plan = async (ids: string[], action: object) =>
  planned(await call('POST', '/api/fleet/plans', { selection: { ids }, action }));
const revertOf = async (id: string) => planned(await call('POST', '/api/fleet/reverts', { planId: id }));
async function run(id: string) {
  const res = await call('POST', `/api/fleet/plans/${id}/run`);
  expect(res.statusCode, res.body).toBe(200);
  return waitPlan(id, ENDED);
}
async function items(id: string): Promise<Map<string, FleetItem>> {
  const res = await call('GET', `/api/fleet/plans/${id}/items`);
  expect(res.statusCode, res.body).toBe(200);
  return new Map((res.json().data.items as FleetItem[]).map((i) => [i.domainName, i]));
}

describe('revert of a fleet run', () => {
  it(
    'DNS add, set and delete: each run reverted puts the zones back; a domain changed since is left alone, then ticked',
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const [d1, d2, d3] = [await domain(cloudId), await domain(cloudId), await domain(cloudId)];
      for (const d of [d1, d2, d3]) {
        sim.addDnsRecord(d.zoneId, { type: 'A', name: d.name, content: '192.0.2.1', ttl: 300, proxied: false });
        sim.addDnsRecord(d.zoneId, { type: 'TXT', name: d.name, content: '"keep me"', ttl: 1, proxied: false });
      }
      const ids = [d1.id, d2.id, d3.id];
      const start = new Map([d1, d2, d3].map((d) => [d.id, recordsOf(d.zoneId)]));

      // Add: reverted, the added record is gone and nothing else moved.
      const add = await plan(ids, {
        kind: 'dns_add',
        record: { type: 'TXT', name: '_undo', content: 'hello', ttl: 1, proxied: false },
      });
      expect((await run(add._id)).run.done).toBe(3);
      expect((await call('GET', `/api/fleet/plans/${add._id}`)).json().data.revert).toEqual({
        possible: true,
        reason: null,
      });
      // Someone edits d3's new record by hand after the run: its revert row is reported with both values.
      const added = [...zone(d3.zoneId).dnsRecords.values()].find((r) => r.name === `_undo.${d3.name}`)!;
      added.content = 'edited by hand';
      const back = await revertOf(add._id);
      expect(back).toMatchObject({
        actionKind: 'revert',
        description: `Revert plan #${add.planNo} (Add a DNS record)`,
      });
      expect(back.counts).toMatchObject({ total: 3, change: 2, refused: 1 });
      const rows = await items(back._id);
      expect(rows.get(d1.name)).toMatchObject({ outcome: 'change', changedSince: false });
      expect(rows.get(d1.name)!.before).toContain(`TXT _undo.${d1.name} hello`);
      expect(rows.get(d1.name)!.after).toBe(`DNS TXT _undo.${d1.name}: no records`);
      const moved = rows.get(d3.name)!;
      expect(moved).toMatchObject({ outcome: 'refused', changedSince: true, forced: false });
      expect(moved.reason).toBe(
        FLEET_REVERT_MESSAGES.changedSince(
          `DNS TXT _undo.${d3.name} is now TXT _undo.${d3.name} edited by hand; the run set TXT _undo.${d3.name} hello`,
        ),
      );
      const end = await run(back._id);
      expect(end).toMatchObject({ state: 'completed', run: { done: 2 } });
      expect(recordsOf(d1.zoneId)).toEqual(start.get(d1.id));
      expect(recordsOf(d2.zoneId)).toEqual(start.get(d2.id));
      expect(recordsOf(d3.zoneId)).toContain(`TXT _undo.${d3.name} edited by hand ttl=1 proxied=false`);

      // Set, then delete, each reverted: the content and the deleted records come back with their TTL.
      const set = await plan(ids, { kind: 'dns_set', type: 'A', name: '@', content: '198.51.100.7' });
      expect((await run(set._id)).run.done).toBe(3);
      const del = await plan(ids, { kind: 'dns_delete', type: 'TXT', name: '@' });
      expect((await run(del._id)).run.done).toBe(3);
      expect(recordsOf(d1.zoneId).some((r) => r.startsWith(`TXT ${d1.name} `))).toBe(false);
      expect((await run((await revertOf(del._id))._id)).run.done).toBe(3);
      expect(recordsOf(d2.zoneId)).toContain(`TXT ${d2.name} "keep me" ttl=1 proxied=false`);
      // d3's row of the set run is changed since (a hand edit), ticked: it is put back all the same.
      const apex = [...zone(d3.zoneId).dnsRecords.values()].find((r) => r.type === 'A')!;
      apex.content = '203.0.113.50';
      const unset = await revertOf(set._id);
      const row = (await items(unset._id)).get(d3.name)!;
      expect(row.changedSince).toBe(true);
      const tick = await call('POST', `/api/fleet/plans/${unset._id}/items/${row.seq}/force`, { force: true });
      expect(tick.statusCode, tick.body).toBe(200);
      expect(tick.json().data).toMatchObject({
        outcome: 'change',
        forced: true,
        reason: FLEET_REVERT_MESSAGES.forced(
          `DNS A ${d3.name} is now A ${d3.name} 203.0.113.50 ttl 300; the run set A ${d3.name} 198.51.100.7 ttl 300`,
        ),
      });
      // Unticked, the row is left alone again with its reason; ticked again for the run.
      const untick = await call('POST', `/api/fleet/plans/${unset._id}/items/${row.seq}/force`, { force: false });
      expect(untick.json().data).toMatchObject({ outcome: 'refused', forced: false, reason: row.reason });
      expect(
        (await call('POST', `/api/fleet/plans/${unset._id}/items/${row.seq}/force`, { force: true })).statusCode,
      ).toBe(200);
      expect((await run(unset._id)).run.done).toBe(3);
      for (const d of [d1, d2]) expect(recordsOf(d.zoneId)).toEqual(start.get(d.id));
      expect(recordsOf(d3.zoneId)).toContain(`A ${d3.name} 192.0.2.1 ttl=300 proxied=false`);
      const audit = await call('GET', `/api/audit-log?entity=fleet_plans&entityId=${unset._id}`);
      expect(audit.json().data.items.map((e: { action: string }) => e.action)).toContain('force_revert_row');
    },
  );

  it(
    'SSL, TLS 1.3, redirects, status and firewall templates: reverted, and the revert reverted in turn',
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const [d1, d2] = [await domain(cloudId), await domain(cloudId)];
      const ids = [d1.id, d2.id];
      zone(d1.zoneId).settings.ssl.value = 'flexible';
      zone(d2.zoneId).settings.ssl.value = 'full';
      const ssl = await plan(ids, { kind: 'ssl', value: 'strict' });
      expect((await run(ssl._id)).run.done).toBe(2);
      const sslBack = await revertOf(ssl._id);
      expect((await items(sslBack._id)).get(d1.name)).toMatchObject({
        before: 'SSL mode: Full strict',
        after: 'SSL mode: Flexible',
      });
      expect((await run(sslBack._id)).run.done).toBe(2);
      expect(zone(d1.zoneId).settings.ssl.value).toBe('flexible');
      expect(zone(d2.zoneId).settings.ssl.value).toBe('full');
      // The revert is a change like any other: reverted, the run's values are back.
      const redo = await revertOf(sslBack._id);
      expect(redo.description).toBe(`Revert plan #${sslBack.planNo} (Revert a change)`);
      expect((await run(redo._id)).run.done).toBe(2);
      expect(zone(d1.zoneId).settings.ssl.value).toBe('strict');

      const tls = zone(d1.zoneId).settings.tls_1_3.value;
      const tlsRun = await plan([d1.id], { kind: 'tls13', value: tls === 'on' ? 'off' : 'on' });
      expect((await run(tlsRun._id)).run.done).toBe(1);
      expect((await run((await revertOf(tlsRun._id))._id)).run.done).toBe(1);
      expect(zone(d1.zoneId).settings.tls_1_3.value).toBe(tls);

      const redirects = await plan(ids, {
        kind: 'redirects',
        rules: [
          { ruleExpression: 'http.host eq "{domain}"', targetUrlValue: 'https://www.{domain}/', statusCode: 301 },
        ],
      });
      expect((await run(redirects._id)).run.done).toBe(2);
      expect((await run((await revertOf(redirects._id))._id)).run.done).toBe(2);
      const rules = await call('GET', `/api/domains/${d2.id}/cloud-flare/redirect-rules`);
      expect(rules.json().data.rules).toEqual([]);

      const status = await plan(ids, { kind: 'set_status', status: 'inactive' });
      expect((await run(status._id)).run.done).toBe(2);
      expect((await run((await revertOf(status._id))._id)).run.done).toBe(2);
      expect((await call('GET', `/api/domains/${d1.id}`)).json().data.status).toBe('active');

      const rule = await create('firewall-rules', {
        name: unique('block'),
        action: 'block',
        expression: '(ip.src eq 192.0.2.66)',
        defaultPriority: 1,
      });
      const waf = await plan(ids, { kind: 'waf_set_push', cloudFirewallRules: [{ ruleId: rule._id, priority: 5 }] });
      expect((await run(waf._id)).run.done).toBe(2);
      const wafBack = await revertOf(waf._id);
      expect((await items(wafBack._id)).get(d1.name)!.after).toBe('Firewall templates: no templates');
      expect((await run(wafBack._id)).run.done).toBe(2);
      expect((await call('GET', `/api/domains/${d1.id}/firewall-rules`)).json().data.items).toEqual([]);
    },
  );

  it('a desired-state run (the command-line client) is reverted part by part', { timeout: 180_000 }, async () => {
    const cloudId = await account();
    const d = await domain(cloudId);
    zone(d.zoneId).settings.ssl.value = 'full';
    const before = recordsOf(d.zoneId);
    const res = await call('POST', '/api/fleet/state/plans', {
      version: 1,
      domains: [{ domain: d.name, ssl: 'strict', dns: [{ type: 'A', name: 'www', content: '192.0.2.44' }] }],
    });
    const p = await planned(res);
    expect(p.counts.change).toBe(1);
    expect((await run(p._id)).run.done).toBe(1);
    expect(recordsOf(d.zoneId)).toContain(`A www.${d.name} 192.0.2.44 ttl=1 proxied=false`);
    const back = await revertOf(p._id);
    expect((await items(back._id)).get(d.name)!.after).toBe(`DNS A www.${d.name}: no records\nSSL mode: Full`);
    expect((await run(back._id)).run.done).toBe(1);
    expect(recordsOf(d.zoneId)).toEqual(before);
    expect(zone(d.zoneId).settings.ssl.value).toBe('full');
  });

  it(
    'refuses what cannot be reverted, with why; a row without a record or a domain says so',
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const [d1, d2] = [await domain(cloudId), await domain(cloudId)];
      const purge = await plan([d1.id], { kind: 'purge_cache' });
      expect((await run(purge._id)).revert).toEqual({
        possible: false,
        reason: FLEET_REVERT_MESSAGES.kind.purge_cache,
      });
      const refused = await call('POST', '/api/fleet/reverts', { planId: purge._id });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().message).toBe(FLEET_REVERT_MESSAGES.kind.purge_cache);

      const notRun = await plan([d1.id], { kind: 'tls13', value: 'on' });
      expect(notRun.revert.reason).toBe(FLEET_REVERT_MESSAGES.notStarted('planned'));
      expect((await call('POST', '/api/fleet/reverts', { planId: notRun._id })).statusCode).toBe(409);

      zone(d1.zoneId).settings.ssl.value = 'full';
      const nothing = await plan([d1.id], { kind: 'ssl', value: 'full' });
      expect((await run(nothing._id)).revert.reason).toBe(FLEET_REVERT_MESSAGES.nothing);

      // Not planned through the generic route; a tick on a row that did not change since is refused.
      const direct = await call('POST', '/api/fleet/plans', {
        selection: { ids: [d1.id] },
        action: { kind: 'revert', planId: purge._id, planNo: purge.planNo, actionKind: 'ssl' },
      });
      expect(direct.statusCode).toBe(400);
      expect(direct.json().message).toContain(FLEET_REVERT_MESSAGES.planElsewhere);

      const ssl = await plan([d1.id, d2.id], { kind: 'ssl', value: 'strict' });
      expect((await run(ssl._id)).run.done).toBe(2);
      // A run made before undo existed has no record (simulated by clearing it); a deleted domain is a row too.
      await t.c.database.db.execute(
        sql`update plan_items set undo = null where plan_id = ${ssl._id} and domain_id = ${d2.id}`,
      );
      const back = await revertOf(ssl._id);
      const rows = await items(back._id);
      expect(rows.get(d2.name)).toMatchObject({ outcome: 'refused', reason: FLEET_REVERT_MESSAGES.notRecorded });
      const tick = await call('POST', `/api/fleet/plans/${back._id}/items/${rows.get(d2.name)!.seq}/force`, {
        force: true,
      });
      expect(tick.statusCode).toBe(409);
      expect(tick.json().message).toBe(FLEET_REVERT_MESSAGES.onlyChangedSince);
      for (const [seq, body, code] of [
        ['0', { force: true }, 400],
        ['abc', { force: true }, 400],
        ['1', { force: 'yes' }, 400],
        ['999', { force: true }, 404],
      ] as const) {
        const r = await call('POST', `/api/fleet/plans/${back._id}/items/${seq}/force`, body);
        expect(r.statusCode, `${seq} ${r.body}`).toBe(code);
        expect(r.json().message).toBeTruthy();
      }
      expect((await call('DELETE', `/api/domains/${d1.id}`)).statusCode).toBe(200);
      const gone = await revertOf(ssl._id);
      expect((await items(gone._id)).get(d1.name)).toMatchObject({
        outcome: 'refused',
        reason: FLEET_MESSAGES.domainGone,
      });
      // Once run, no row can be ticked.
      await run(back._id);
      const late = await call('POST', `/api/fleet/plans/${back._id}/items/1/force`, { force: true });
      expect(late.statusCode).toBe(409);
    },
  );
});

describe('revert of an audited change', () => {
  type Entry = {
    _id: string;
    action: string;
    details: Record<string, unknown>;
    revert: { possible: boolean; reason: string | null };
  };
  async function lastEntry(domainId: string, action: string): Promise<Entry> {
    const res = await call('GET', `/api/audit-log?entity=domains&entityId=${domainId}&action=${action}`);
    expect(res.statusCode, res.body).toBe(200);
    const e = res.json().data.items[0] as Entry | undefined;
    expect(e, action).toBeTruthy();
    return e!;
  }
  const revertEntry = async (auditId: string) => planned(await call('POST', '/api/fleet/reverts', { auditId }));

  it(
    'a DNS editor batch, an SSL mode and redirect rules: each entry reverted through a plan, read back at Cloudflare',
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const d = await domain(cloudId);
      const www = sim.addDnsRecord(d.zoneId, {
        type: 'CNAME',
        name: `www.${d.name}`,
        content: d.name,
        ttl: 1,
        proxied: true,
      });
      sim.addDnsRecord(d.zoneId, { type: 'A', name: d.name, content: '192.0.2.1', ttl: 1, proxied: true });
      const before = recordsOf(d.zoneId);
      // One editor batch: a record added, one changed, one deleted.
      const apex = [...zone(d.zoneId).dnsRecords.values()].find((r) => r.type === 'A')!;
      const batch = await call('POST', `/api/domains/${d.id}/cloud-flare/dns_records`, {
        posts: [{ type: 'TXT', name: d.name, content: 'v=spf1 -all', ttl: 1, proxied: false }],
        patches: [{ id: apex.id, type: 'A', name: d.name, content: '198.51.100.2', ttl: 1, proxied: true }],
        deletes: [{ id: www }],
      });
      expect(batch.statusCode, batch.body).toBe(200);
      const e = await lastEntry(d.id, 'cloudflare_change_dns_records');
      expect(e.revert).toEqual({ possible: true, reason: null });
      const p = await revertEntry(e._id);
      expect(p.description).toMatch(/^Revert audit entry № \d+ \(a DNS change\)$/);
      expect(p.counts).toMatchObject({ total: 1, change: 1 });
      expect((await run(p._id)).run.done).toBe(1);
      expect(recordsOf(d.zoneId)).toEqual(before);

      zone(d.zoneId).settings.ssl.value = 'flexible';
      expect((await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'strict' })).statusCode).toBe(
        200,
      );
      const ssl = await lastEntry(d.id, 'cloudflare_set_ssl');
      expect(ssl.details.undo).toEqual([{ area: 'ssl', before: 'flexible', after: 'strict' }]);
      expect((await run((await revertEntry(ssl._id))._id)).run.done).toBe(1);
      expect(zone(d.zoneId).settings.ssl.value).toBe('flexible');

      const rules = await call('POST', `/api/domains/${d.id}/cloud-flare/redirect-rules`, {
        rules: [
          {
            ruleExpression: `http.host eq "${d.name}"`,
            targetUrlValue: `https://www.${d.name}/`,
            statusCode: 301,
            preserveQueryString: false,
          },
        ],
      });
      expect(rules.statusCode, rules.body).toBe(200);
      const redirects = await lastEntry(d.id, 'cloudflare_set_redirect_rules');
      expect((await run((await revertEntry(redirects._id))._id)).run.done).toBe(1);
      expect((await call('GET', `/api/domains/${d.id}/cloud-flare/redirect-rules`)).json().data.rules).toEqual([]);
    },
  );

  it(
    'a record changed since the entry is left alone; failed, unknown and non-change entries are refused with why',
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const d = await domain(cloudId);
      const add = await call('POST', `/api/domains/${d.id}/cloud-flare/dns_records`, {
        posts: [{ type: 'TXT', name: `_check.${d.name}`, content: 'one', ttl: 1, proxied: false }],
      });
      expect(add.statusCode, add.body).toBe(200);
      const e = await lastEntry(d.id, 'cloudflare_change_dns_records');
      [...zone(d.zoneId).dnsRecords.values()].find((r) => r.type === 'TXT')!.content = 'two';
      const p = await revertEntry(e._id);
      const row = (await items(p._id)).get(d.name)!;
      expect(row).toMatchObject({ outcome: 'refused', changedSince: true });
      expect(row.reason).toContain(`is now TXT _check.${d.name} two; the run set TXT _check.${d.name} one`);

      // A change Cloudflare refused: its entry is not revertible.
      sim.fail({ kind: '5xx', status: 500, count: 20 });
      const failed = await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/tls_1_3`, { value: 'on' });
      sim.clearFailures();
      expect(failed.statusCode).toBeGreaterThanOrEqual(500);
      const f = await lastEntry(d.id, 'cloudflare_set_tls_1_3');
      expect(f.revert).toEqual({ possible: false, reason: FLEET_REVERT_MESSAGES.failedChange });
      const refused = await call('POST', '/api/fleet/reverts', { auditId: f._id });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().message).toBe(FLEET_REVERT_MESSAGES.failedChange);

      const created = await lastEntry(d.id, 'cloudflare_create_zone');
      expect(created.revert).toEqual({ possible: false, reason: FLEET_REVERT_MESSAGES.kind.create_zone });
      const domainEntry = (await call('GET', `/api/audit-log?entity=domains&entityId=${d.id}&action=create`)).json()
        .data.items[0] as Entry;
      expect(domainEntry.revert).toEqual({ possible: false, reason: null });
      const notChange = await call('POST', '/api/fleet/reverts', { auditId: domainEntry._id });
      expect(notChange.statusCode).toBe(409);
      expect(notChange.json().message).toBe(FLEET_REVERT_MESSAGES.notAChange);
      const unknown = await call('POST', '/api/fleet/reverts', { auditId: '00000000-0000-4000-8000-000000000000' });
      expect(unknown.statusCode).toBe(404);
      for (const body of [{}, { auditId: 'x' }, { planId: d.id, auditId: d.id }, { planId: 5 }]) {
        const bad = await call('POST', '/api/fleet/reverts', body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.json().message).toBeTruthy();
      }
    },
  );
});

describe('revert of a WAF push', () => {
  /** The zone's custom rules as Cloudflare holds them: description and expression, in order. */
  const wafOf = (zoneId: string) =>
    (zone(zoneId).rulesets.get('http_request_firewall_custom')?.rules ?? []).map(
      (r) => `${r.description ?? ''}: ${r.expression}`,
    );
  it(
    "puts the console's rules back as they were, from the push's audit entry and from a fleet run; others' rules stay",
    { timeout: 180_000 },
    async () => {
      const cloudId = await account();
      const [d1, d2] = [await domain(cloudId), await domain(cloudId)];
      const template = async (ip: string) =>
        create('firewall-rules', {
          name: unique('block'),
          action: 'block',
          expression: `(ip.src eq ${ip})`,
          defaultPriority: 1,
        });
      const [a, b] = [await template('192.0.2.1'), await template('192.0.2.2')];
      const setRules = async (id: string, ruleId: string) =>
        expect(
          (await call('POST', `/api/domains/${id}/firewall-rules`, { cloudFirewallRules: [{ ruleId, priority: 1 }] }))
            .statusCode,
        ).toBe(200);
      const push = async (id: string) => {
        const r = await call('POST', `/api/domains/${id}/cloud-flare/update-firewall-rules`);
        expect(r.statusCode, r.body).toBe(200);
      };

      // A first push of template A, a rule someone else made by hand after it, then a push of template B.
      await setRules(d1.id, a._id);
      await push(d1.id);
      const rs = zone(d1.zoneId).rulesets.get('http_request_firewall_custom')!;
      rs.rules.push({
        ...rs.rules[0]!,
        id: 'f'.repeat(32),
        ref: 'hand-made',
        description: 'by hand',
        expression: '(ip.src eq 198.51.100.9)',
      });
      const withA = wafOf(d1.zoneId);
      await setRules(d1.id, b._id);
      await push(d1.id);
      expect(wafOf(d1.zoneId)).not.toEqual(withA);
      const res = await call(
        'GET',
        `/api/audit-log?entity=domains&entityId=${d1.id}&action=cloudflare_update_firewall_rules`,
      );
      const entry = res.json().data.items[0] as { _id: string; revert: unknown };
      expect(entry.revert).toEqual({ possible: true, reason: null });
      const p = await planned(await call('POST', '/api/fleet/reverts', { auditId: entry._id }));
      expect(p.description).toMatch(/\(a WAF push\)$/);
      expect((await run(p._id)).run.done).toBe(1);
      // Template A's rule is back in its place, and the hand-made rule was never touched.
      expect(wafOf(d1.zoneId)).toEqual(withA);

      // A fleet push over two domains, reverted: d2 had no rules of the console before it.
      await setRules(d2.id, b._id);
      const before2 = wafOf(d2.zoneId);
      const fleetPush = await plan([d1.id, d2.id], { kind: 'waf_push' });
      expect(fleetPush.revert).toMatchObject({ possible: false });
      expect((await run(fleetPush._id)).run.done).toBe(2);
      expect((await call('GET', `/api/fleet/plans/${fleetPush._id}`)).json().data.revert).toEqual({
        possible: true,
        reason: null,
      });
      const back = await revertOf(fleetPush._id);
      expect(back.counts).toMatchObject({ total: 2, change: 2 });
      expect((await run(back._id)).run.done).toBe(2);
      expect(wafOf(d1.zoneId)).toEqual(withA);
      expect(wafOf(d2.zoneId)).toEqual(before2);
    },
  );
});

describe('revert of a health fix', () => {
  it('"Fix all" of the SSL mode is reverted to what each zone had before the fix', async () => {
    const cloudId = await account();
    const [d1, d2] = [await domain(cloudId), await domain(cloudId)];
    for (const d of [d1, d2]) {
      const set = await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'strict' });
      expect(set.statusCode, set.body).toBe(200);
    }
    // Changed outside the console since: the check fails, expecting strict.
    zone(d1.zoneId).settings.ssl.value = 'flexible';
    zone(d2.zoneId).settings.ssl.value = 'off';
    const fix = await plan([d1.id, d2.id], { kind: 'health_fix', check: 'cf_ssl' });
    expect(fix.counts).toMatchObject({ total: 2, change: 2 });
    expect((await run(fix._id)).run.done).toBe(2);
    expect([zone(d1.zoneId).settings.ssl.value, zone(d2.zoneId).settings.ssl.value]).toEqual(['strict', 'strict']);
    const back = await revertOf(fix._id);
    expect(back.description).toBe(`Revert plan #${fix.planNo} (${fix.actionLabel})`);
    expect((await run(back._id)).run.done).toBe(2);
    expect([zone(d1.zoneId).settings.ssl.value, zone(d2.zoneId).settings.ssl.value]).toEqual(['flexible', 'off']);
  });
});

describe('revert of a domain form change', () => {
  it(
    "the form's fields put back from the entry's diff; a field changed since is left alone unless ticked",
    { timeout: 180_000 },
    async () => {
      const brandA = await create('brands', { name: unique('Brand A') });
      const brandB = await create('brands', { name: unique('Brand B') });
      const name = `${unique('form')}.com`;
      const d = await create('domains', { domainName: name, status: 'active', brandId: brandA._id });
      const put = async (body: object) => {
        const res = await call('PUT', `/api/domains/${d._id}`, { domainName: name, ...body });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().data as Record<string, unknown>;
      };
      await put({ status: 'inactive', brandId: brandB._id, isRestricted: true, redirectDomainName: `www.${name}` });
      const res = await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}&action=update`);
      const e = res.json().data.items[0] as { _id: string; revert: { possible: boolean } };
      expect(e.revert).toEqual({ possible: true, reason: null });

      const p = await planned(await call('POST', '/api/fleet/reverts', { auditId: e._id }));
      expect(p.description).toMatch(/^Revert audit entry № \d+ \(the domain's fields\)$/);
      const row = (await items(p._id)).get(name)!;
      expect(row.outcome).toBe('change');
      expect(row.after).toContain(`Brand: ${brandA.name}`);
      expect(row.after).toContain('Restricted: off');
      expect((await run(p._id)).run.done).toBe(1);
      const back = (await call('GET', `/api/domains/${d._id}`)).json().data;
      expect(back).toMatchObject({
        status: 'active',
        brandId: brandA._id,
        isRestricted: false,
        redirectDomainName: null,
      });

      // The revert is itself an audited change, and revertible: reverting it applies the form change again.
      const again = (await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}&action=update`)).json().data
        .items[0] as { _id: string; revert: { possible: boolean } };
      expect(again._id).not.toBe(e._id);
      // Someone changes the redirect after the form change: that row is reported with both values and left alone.
      await put({ status: 'inactive', brandId: brandB._id, isRestricted: true, redirectDomainName: `www.${name}` });
      const second = (await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}&action=update`)).json().data
        .items[0] as { _id: string };
      await put({ status: 'inactive', brandId: brandB._id, isRestricted: true, redirectDomainName: `m.${name}` });
      const held = await planned(await call('POST', '/api/fleet/reverts', { auditId: second._id }));
      const heldRow = (await items(held._id)).get(name)!;
      expect(heldRow).toMatchObject({ outcome: 'refused', changedSince: true });
      expect(heldRow.reason).toContain(`Redirect to is now m.${name}; the run set www.${name}`);
      const tick = await call('POST', `/api/fleet/plans/${held._id}/items/1/force`, { force: true });
      expect(tick.statusCode, tick.body).toBe(200);
      expect((await run(held._id)).run.done).toBe(1);
      expect((await call('GET', `/api/domains/${d._id}`)).json().data).toMatchObject({
        status: 'active',
        brandId: brandA._id,
        isRestricted: false,
      });

      // An update that touched only the name offers no revert, and says why.
      const renamed = await call('PUT', `/api/domains/${d._id}`, { domainName: `x${name}`, status: 'active' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      const onlyName = (await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}&action=update`)).json().data
        .items[0] as { diff: Record<string, unknown>; revert: unknown };
      expect(Object.keys(onlyName.diff)).toEqual(['domainName']);
      expect(onlyName.revert).toEqual({ possible: false, reason: FLEET_REVERT_MESSAGES.noFieldToRevert });
    },
  );
});

describe('revert of an import', () => {
  it(
    'removes the domains it created that nothing changed since, unlinks the zone it linked, and reports the rest',
    { timeout: 180_000 },
    async () => {
      const email = `${unique('imp')}@example.com`;
      const token = `${unique('token')}-0123456789abcdef`;
      const { accountId } = sim.addAccount({ email, token });
      const cloud = await create('clouds', { email, token });
      const tag = unique('rev');
      const names = [0, 1, 2].map((i) => `${tag}-${i}.com`);
      const zones = names.map((n) => sim.addZone(accountId, n, { status: 'active' }));
      const linked = await create('domains', { domainName: names[0], status: 'active', cloudId: null });
      const imp = await call('POST', '/api/imports', { source: 'cloudflare', sourceId: cloud._id });
      expect(imp.statusCode, imp.body).toBe(201);
      const importId = imp.json().data._id as string;
      const waitImport = async (states: string[]) => {
        for (let i = 0; i < 600; i++) {
          const s = (await call('GET', `/api/imports/${importId}`)).json().data.state as string;
          if (states.includes(s)) return s;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('import did not end');
      };
      await waitImport(['planned']);
      // Not run yet: nothing to revert.
      const early = await call('POST', '/api/fleet/reverts', { importId });
      expect(early.statusCode).toBe(409);
      expect(early.json().message).toBe(FLEET_REVERT_MESSAGES.importNotRun('planned'));
      expect((await call('POST', `/api/imports/${importId}/run`)).statusCode).toBe(200);
      expect(await waitImport(['completed', 'completed_with_failures', 'failed'])).toBe('completed');

      const byName = async (n: string) =>
        (
          (await call('GET', `/api/domains?search=${n}`)).json().data.items as { _id: string; domainName: string }[]
        ).find((d) => d.domainName === n);
      // A domain the import created is given a brand since: it is left alone.
      const kept = (await byName(names[2]!))!;
      const brand = await create('brands', { name: unique('brand') });
      const branded = await call('PATCH', `/api/domains/${kept._id}`, { brandId: brand._id });
      expect(branded.statusCode, branded.body).toBe(200);

      const p = await planned(await call('POST', '/api/fleet/reverts', { importId }));
      expect(p.description).toMatch(/^Revert import #\d+ \(cloudflare\)$/);
      expect(p.counts).toMatchObject({ total: 3, change: 2, refused: 1 });
      const rows = await items(p._id);
      expect(rows.get(names[0]!)).toMatchObject({ outcome: 'change', after: 'Cloudflare zone: none' });
      expect(rows.get(names[1]!)).toMatchObject({ outcome: 'change', after: 'Domain: removed' });
      expect(rows.get(names[2]!)).toMatchObject({ outcome: 'refused', changedSince: true });
      expect(rows.get(names[2]!)!.reason).toContain('changed since the import (brandId)');
      expect((await run(p._id)).run.done).toBe(2);
      expect(await byName(names[1]!)).toBeUndefined();
      expect((await call('GET', `/api/domains/${linked._id}`)).json().data).toMatchObject({ cloudZoneId: null });
      expect(await byName(names[2]!)).toBeTruthy();
      // The zones themselves stay at Cloudflare: a revert of an import changes the console only.
      for (const z of zones) expect(sim.state.zones.has(z.zoneId)).toBe(true);

      // The revert is revertible: the removed domain comes back under its own id with its zone, the zone link too.
      const removedId = rows.get(names[1]!)!.domainId!;
      const redo = await revertOf(p._id);
      expect(redo.counts).toMatchObject({ total: 2, change: 2 });
      expect((await items(redo._id)).get(names[1]!)).toMatchObject({
        outcome: 'change',
        after: `Domain: ${names[1]}, put back as it was`,
      });
      expect((await run(redo._id)).run.done).toBe(2);
      expect((await call('GET', `/api/domains/${removedId}`)).json().data).toMatchObject({
        domainName: names[1],
        cloudId: cloud._id,
        cloudZoneId: zones[1]!.zoneId,
      });
      expect((await call('GET', `/api/domains/${linked._id}`)).json().data.cloudZoneId).toBe(zones[0]!.zoneId);
      // And once more: removed again. A name taken meanwhile is a row that says so.
      const again = await revertOf(redo._id);
      expect((await run(again._id)).run.done).toBe(2);
      expect(await byName(names[1]!)).toBeUndefined();
      await create('domains', { domainName: names[1], status: 'active' });
      const blocked = await revertOf(again._id);
      expect((await items(blocked._id)).get(names[1]!)).toMatchObject({
        outcome: 'refused',
        reason: FLEET_REVERT_MESSAGES.nameTaken(names[1]!),
      });
    },
  );
});
