import { describe, expect, it } from 'vitest';
import { fromRecordAnswer, toRecordBody } from './record-body.ts';
import type { CfDnsRecord } from './types.ts';

const answer = (r: Partial<CfDnsRecord>): CfDnsRecord => ({
  id: 'r1',
  name: 'example.com',
  content: '',
  ttl: 1,
  proxied: false,
  proxiable: false,
  created_on: '2024-01-01T00:00:00Z',
  modified_on: '2024-01-01T00:00:00Z',
  type: 'A',
  ...r,
});

describe('Cloudflare record bodies: data for the structured types', () => {
  it('sends CAA, SRV and URI as data (SRV priority inside it, URI priority beside it), without content', () => {
    expect(toRecordBody({ type: 'CAA', name: '@', content: '0 issue "ca.example"', ttl: 1, proxied: false })).toEqual({
      type: 'CAA',
      name: '@',
      ttl: 1,
      data: { flags: 0, tag: 'issue', value: 'ca.example' },
    });
    expect(toRecordBody({ type: 'SRV', name: '_s._tcp', content: '5 5060 sip.example', priority: 10 })).toEqual({
      type: 'SRV',
      name: '_s._tcp',
      data: { priority: 10, weight: 5, port: 5060, target: 'sip.example' },
    });
    expect(toRecordBody({ type: 'URI', name: '_u._tcp', content: '1 "https://a.example/"', priority: 3 })).toEqual({
      type: 'URI',
      name: '_u._tcp',
      priority: 3,
      data: { weight: 1, target: 'https://a.example/' },
    });
  });

  it('a record read back (content and data) goes out with its data alone; other types keep content', () => {
    const data = { flags: 0, tag: 'issue', value: 'ca.example' };
    expect(toRecordBody({ type: 'CAA', name: 'x', content: '0 issue "ca.example"', data })).toEqual({
      type: 'CAA',
      name: 'x',
      data,
    });
    expect(toRecordBody({ type: 'A', name: 'x', content: '192.0.2.1', proxied: false })).toEqual({
      type: 'A',
      name: 'x',
      content: '192.0.2.1',
      proxied: false,
    });
    // proxied:false is not part of the TXT schema; left out.
    expect(toRecordBody({ type: 'TXT', name: 'x', content: 'v', proxied: false })).toEqual({
      type: 'TXT',
      name: 'x',
      content: 'v',
    });
  });

  it('reads answers with data: content rebuilt when absent, SRV priority lifted', () => {
    const srv = fromRecordAnswer(
      answer({ type: 'SRV', content: '', data: { priority: 10, weight: 5, port: 5060, target: 'sip.example' } }),
    );
    expect(srv).toMatchObject({ content: '5 5060 sip.example', priority: 10 });
    const caa = fromRecordAnswer(
      answer({ type: 'CAA', content: '0 issue "ca.example"', data: { flags: 0, tag: 'issue', value: 'ca.example' } }),
    );
    expect(caa.content).toBe('0 issue "ca.example"');
  });
});
