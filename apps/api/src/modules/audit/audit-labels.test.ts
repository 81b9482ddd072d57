import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_LABELS, AUDIT_ENTITY_LABELS, auditSentence } from '@fleetdesk/contract';
import { createAuditService } from './audit.service.ts';

/**
 * Every action that writes the audit trail has words in the one label table (audit-labels.ts in the contract),
 * found in the API's source: `audit.record(…, { action: '…', entity … })` and the provider helpers that prefix
 * their actions (`cloudflare_${action}`, called as `audited(actor, ctx, 'set_ssl', …)`).
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' || e.name === 'demo' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function auditedActions() {
  const actions = new Map<string, string>();
  const entities = new Set<string>();
  const files = sources(SRC).map((file) => ({ rel: path.relative(SRC, file), text: fs.readFileSync(file, 'utf8') }));
  // Helpers that take the action as a parameter (`changeRow(id, actor, 'set_cloud_zone', …)`, `audited(actor,
  // ctx, 'set_ssl', …)` with a `cloudflare_${action}` prefix), wherever they are declared: the Cloudflare
  // service's files call the `audited` of cloud-flare.context.ts.
  const helpers = files.flatMap(({ rel, text }) => {
    const prefix = /action: `([a-z0-9]+)_\$\{action\}`/.exec(text)?.[1];
    return [...text.matchAll(/const (\w+) = async (?:<[^>]*>)?\(([^)]*?)\baction: string/g)].map((h) => ({
      rel,
      name: h[1]!,
      before: h[2]!.split(',').length - 1,
      prefix,
    }));
  });
  for (const { rel, text } of files) {
    if (!/audit\.record\(|audited\(/.test(text)) continue;
    for (const m of text.matchAll(/action: '([a-z0-9_]+)',\s*entity[,:]/g)) actions.set(m[1]!, rel);
    for (const m of text.matchAll(/entity: '([a-z_-]+)'/g)) entities.add(m[1]!);
    // A call reaches the helper of its own file, else the one of a file it imports.
    const own = new Set(helpers.filter((h) => h.rel === rel).map((h) => h.name));
    const reached = helpers.filter((h) =>
      h.rel === rel ? true : !own.has(h.name) && text.includes(`/${path.basename(h.rel, '.ts')}.ts'`),
    );
    for (const h of reached) {
      const call = new RegExp(`\\b${h.name}\\(${'\\s*[^,()]+,'.repeat(h.before)}\\s*'([a-z0-9_]+)'`, 'g');
      for (const m of text.matchAll(call)) actions.set(h.prefix ? `${h.prefix}_${m[1]}` : m[1]!, rel);
    }
  }
  return { actions, entities };
}

describe('the audit label table', () => {
  const { actions, entities } = auditedActions();

  it('finds the audited actions in the source (the scan itself works)', () => {
    for (const a of [
      'create',
      'login',
      'create_plan',
      'cloudflare_set_ssl',
      'directadmin_create_domain',
      'set_cloud_zone',
    ])
      expect([...actions.keys()]).toContain(a);
  });

  it('has words for every action that writes the audit trail, and every entity', () => {
    const missing = [...actions].filter(([a]) => !AUDIT_ACTION_LABELS[a]).map(([a, file]) => `${a} (${file})`);
    expect(missing).toEqual([]);
    expect([...entities].filter((e) => !AUDIT_ENTITY_LABELS[e])).toEqual([]);
  });

  it('reads entries as sentences', () => {
    expect(
      auditSentence({
        username: 'admin',
        action: 'cloudflare_set_ssl',
        entity: 'domains',
        entityId: 'x',
        details: { domainName: 'example.com', outcome: 'ok', sent: { zoneId: 'z', setting: 'ssl', value: 'strict' } },
      }),
    ).toBe('admin set the SSL mode of example.com to Full strict');
    expect(
      auditSentence({
        username: 'admin',
        action: 'create_plan',
        entity: 'fleet_plans',
        entityId: 'x',
        details: {
          planNo: 3,
          domains: 5,
          action: { kind: 'dns_add', record: { type: 'TXT', name: '_tour', content: 'hello', ttl: 1, proxied: false } },
        },
      }),
    ).toBe('admin created fleet plan #3: Add TXT _tour → hello');
    expect(auditSentence({ username: 'admin', action: 'login', entity: 'sessions', entityId: 'u' })).toBe(
      'admin signed in',
    );
    expect(
      auditSentence({
        username: 'admin',
        action: 'create',
        entity: 'brands',
        entityId: 'b',
        diff: { name: { before: null, after: 'Acme' } },
      }),
    ).toBe('admin created brand Acme');
  });

  it('says what an update changed and of what, and names a webmaster host (issue 47)', () => {
    expect(
      auditSentence({
        username: 'launch #5 (admin)',
        action: 'update',
        entity: 'domains',
        entityId: 'd',
        diff: { serverId: { before: null, after: 's' }, brandId: { before: null, after: 'b' } },
        details: { domainName: 'example.com' },
      }),
    ).toBe('launch #5 (admin) changed the server and brand of example.com');
    expect(
      auditSentence({
        username: 'admin',
        action: 'update',
        entity: 'servers',
        entityId: 's',
        diff: { parserURL: { before: null, after: 'x' }, domainsLimitQty: { before: 1, after: 2 } },
        details: { IPAddress: '192.0.2.1' },
      }),
    ).toBe('admin changed the parser URL and domains limit qty of server 192.0.2.1');
    expect(
      auditSentence({
        username: 'admin',
        action: 'verify_host',
        entity: 'yandex-webmaster',
        entityId: 'a',
        details: { hostId: 'https:example.com:443', verificationType: 'DNS' },
      }),
    ).toBe('admin verified at Yandex Webmaster example.com');
  });
});

describe('the audit trail names what an entry is about', () => {
  it('keeps the name of a record whose update left its name alone', async () => {
    const rows: { details: Record<string, unknown> | null }[] = [];
    const audit = createAuditService({
      repo: { insert: async (r: never) => void rows.push(r), list: async () => ({}) } as never,
    });
    const actor = { userId: null, username: 'launch #5 (admin)', rules: [], requestId: 'r' } as never;
    await audit.record(actor, {
      action: 'update',
      entity: 'domains',
      entityId: 'd',
      before: { domainName: 'example.com', serverId: null },
      after: { domainName: 'example.com', serverId: 's' },
    });
    expect(rows[0]!.details).toEqual({ domainName: 'example.com' });
  });
});
