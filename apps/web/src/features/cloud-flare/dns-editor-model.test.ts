import { describe, expect, it } from 'vitest';
import type { DnsRecord } from '@fleetdesk/contract';
import {
  diffRows,
  newRow,
  PRIORITY_MESSAGE,
  rowOf,
  showValue,
  summaryLine,
  validateRow,
  withField,
} from './dns-editor-model.ts';

const records: DnsRecord[] = [
  { id: 'a1', type: 'A', name: 'example.com', content: '192.0.2.1', proxied: true, ttl: 1 },
  { id: 'm1', type: 'MX', name: 'example.com', content: 'mail.example.com', proxied: false, ttl: 3600, priority: 10 },
  { id: 't1', type: 'TXT', name: 'example.com', content: 'v=spf1 -all', proxied: false, ttl: 3600 },
];

describe('DNS editor model', () => {
  it('starts a new row with the defaults: type A, proxied, ttl 1', () => {
    expect(newRow('n1')).toEqual({
      key: 'n1',
      type: 'A',
      name: '',
      content: '',
      proxied: '1',
      ttl: '1',
      priority: '',
    });
  });

  it('turns changed rows into patches, removed rows into deletes and new rows into posts', () => {
    const rows = records.map(rowOf);
    rows[0] = withField(rows[0]!, 'content', '192.0.2.99');
    rows[0] = withField(rows[0], 'proxied', '0');
    rows.splice(2, 1);
    rows.push({ ...newRow('n1'), name: 'www', content: '192.0.2.7', ttl: '300' });
    const { changes, summary } = diffRows(records, rows);
    expect(changes).toEqual({
      deletes: [{ id: 't1' }],
      patches: [{ id: 'a1', type: 'A', name: 'example.com', content: '192.0.2.99', proxied: false, ttl: 1 }],
      posts: [{ type: 'A', name: 'www', content: '192.0.2.7', proxied: true, ttl: 300 }],
    });
    expect(summaryLine(summary)).toBe('1 added, 1 changed, 1 deleted');
    expect(summary.changed[0]!.changes).toEqual([
      { field: 'content', before: '192.0.2.1', after: '192.0.2.99' },
      { field: 'proxied', before: '1', after: '0' },
    ]);
  });

  it('sees no change when nothing was edited (type case and spaces aside)', () => {
    const rows = records.map(rowOf);
    rows[0] = withField(rows[0]!, 'type', 'a');
    rows[1] = withField(rows[1]!, 'ttl', ' 3600 ');
    expect(diffRows(records, rows).changes).toEqual({ deletes: [], patches: [], posts: [] });
  });

  it('parses ttl as an integer and proxied as true only for "1"', () => {
    const rows = [{ ...newRow('n'), name: 'x', content: '192.0.2.1', ttl: '120', proxied: '0' as const }];
    expect(diffRows([], rows).changes.posts).toEqual([
      { type: 'A', name: 'x', content: '192.0.2.1', proxied: false, ttl: 120 },
    ]);
  });

  it('keeps an MX priority and sends it with a patch', () => {
    const rows = records.map(rowOf);
    rows[1] = withField(rows[1]!, 'content', 'mx2.example.com');
    expect(diffRows(records, rows).changes.patches[0]).toMatchObject({ id: 'm1', priority: 10 });
  });

  it('requires type, name, content and ttl, and a priority for MX', () => {
    expect(validateRow({ ...newRow('n'), type: '', ttl: '' })).toEqual({
      type: 'Type is required',
      name: 'Name is required',
      content: 'Content is required',
      ttl: 'TTL is required',
    });
    expect(validateRow({ ...newRow('n'), name: 'a', content: 'b', ttl: 'abc' }).ttl).toBe(
      'TTL must be a whole number (1 means Auto)',
    );
    expect(validateRow({ ...newRow('n'), name: 'a', content: 'b', ttl: '5' }).ttl).toMatch(/^TTL must be 1 \(Auto\)/);
    expect(validateRow({ ...newRow('n'), type: 'MX', name: 'a', content: 'mx.example.com' }).priority).toBe(
      PRIORITY_MESSAGE,
    );
    expect(validateRow({ ...newRow('n'), name: 'a', content: '192.0.2.1' })).toEqual({});
  });

  it('checks structured records (CAA, SRV, …) field by field, and SRV needs its priority', () => {
    const caa = { ...newRow('c'), type: 'CAA', proxied: '0' as const, name: '@' };
    expect(validateRow({ ...caa, content: '0 issue "letsencrypt.org"' })).toEqual({});
    expect(validateRow({ ...caa, content: '300 issue "letsencrypt.org"' }).content).toMatch(
      /^Content of a CAA record must be flags tag "value"/,
    );
    const srv = {
      ...newRow('s'),
      type: 'SRV',
      proxied: '0' as const,
      name: '_sip._tcp',
      content: '5 5060 sip.example.com',
    };
    expect(validateRow(srv).priority).toBe(PRIORITY_MESSAGE);
    expect(validateRow({ ...srv, priority: '10' })).toEqual({});
  });

  it('sets an unproxiable type to DNS only', () => {
    expect(withField(newRow('n'), 'type', 'TXT').proxied).toBe('0');
    expect(withField(newRow('n'), 'type', 'CNAME').proxied).toBe('1');
  });

  it('shows values the way operators read them', () => {
    expect(showValue('ttl', '1')).toBe('Auto');
    expect(showValue('proxied', '1')).toBe('Proxied');
    expect(showValue('proxied', '0')).toBe('DNS only');
  });
});
