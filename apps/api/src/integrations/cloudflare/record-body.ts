import { dnsContentFromData, dnsDataFromContent, isDnsDataType, isProxiableType } from '@fleetdesk/contract';
import type { CfDnsRecord } from './types.ts';

/**
 * CAA, SRV, URI, HTTPS, SVCB, TLSA, SSHFP, NAPTR, DS, CERT, LOC, DNSKEY and SMIMEA records are sent as `data`:
 * Cloudflare's OpenAPI marks their `content` read-only and requires `data` (decision 062). Every caller (the DNS
 * editor, templates, launches, fleet actions, zone-file imports) keeps one content text per record; the client
 * turns it into `data` here, so none of them can send the refused shape. SRV's priority goes inside `data`; URI's
 * stays at the top level, where its schema has it.
 */
export function toRecordBody<T extends object>(record: T): T {
  let r = record as Record<string, unknown>;
  const type = typeof r.type === 'string' ? r.type.trim().toUpperCase() : undefined;
  // Only A, AAAA and CNAME schemas have `proxied`; on other types false says nothing and is left out.
  if (type && !isProxiableType(type) && r.proxied === false) {
    const { proxied: _unused, ...rest } = r;
    r = rest;
    record = rest as T;
  }
  if (!type || !isDnsDataType(type)) return record;
  const { content, ...rest } = r;
  let data = rest.data;
  if (data === undefined || data === null) {
    if (typeof content !== 'string') return record;
    const priority = typeof rest.priority === 'number' ? rest.priority : undefined;
    const parsed = dnsDataFromContent(type, content, priority);
    // Not splittable: sent as written, and Cloudflare's refusal names the field (the editor checks first).
    if (!parsed.ok) return record;
    data = parsed.data;
  }
  const out: Record<string, unknown> = { ...rest, data };
  if (type === 'SRV') {
    if (typeof out.priority === 'number' && typeof (data as Record<string, unknown>).priority !== 'number')
      out.data = { ...(data as object), priority: out.priority };
    delete out.priority;
  }
  return out as T;
}

/**
 * Cloudflare answers these types with `data` and a computed `content`; both are read. Content is rebuilt from data
 * when absent, and SRV's priority (inside data) is lifted to the record's priority, where the console keeps it.
 */
export function fromRecordAnswer(r: CfDnsRecord): CfDnsRecord {
  const data = r.data;
  if (!data || typeof data !== 'object' || !isDnsDataType(r.type)) return r;
  const out = { ...r };
  if (typeof out.content !== 'string' || out.content.trim() === '') out.content = dnsContentFromData(r.type, data);
  if (r.type.toUpperCase() === 'SRV' && typeof out.priority !== 'number' && typeof data.priority === 'number')
    out.priority = data.priority;
  return out;
}
