import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_LABELS, AUDIT_ENTITY_LABELS, auditSentence } from '@fleetdesk/contract';

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
  for (const file of sources(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    if (!/audit\.record\(|audited\(/.test(text)) continue;
    const rel = path.relative(SRC, file);
    for (const m of text.matchAll(/action: '([a-z0-9_]+)',\s*entity[,:]/g)) actions.set(m[1]!, rel);
    for (const m of text.matchAll(/entity: '([a-z_-]+)'/g)) entities.add(m[1]!);
    // Helpers that take the action as a parameter (`changeRow(id, actor, 'set_cloud_zone', …)`, `audited(actor,
    // ctx, 'set_ssl', …)` with a `cloudflare_${action}` prefix): the string their callers pass.
    const prefix = /action: `([a-z0-9]+)_\$\{action\}`/.exec(text)?.[1];
    for (const h of text.matchAll(/const (\w+) = async (?:<[^>]*>)?\(([^)]*?)\baction: string/g)) {
      const before = h[2]!.split(',').length - 1;
      const call = new RegExp(`\\b${h[1]}\\(${'\\s*[^,()]+,'.repeat(before)}\\s*'([a-z0-9_]+)'`, 'g');
      for (const m of text.matchAll(call)) actions.set(prefix ? `${prefix}_${m[1]}` : m[1]!, rel);
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
});
