import { DNS_TTL_AUTO, DNS_TTL_MAX, PROXIABLE_DNS_TYPES } from './cloud-flare.ts';
import { dnsDataFromContent, isDnsDataType } from './dns-record-data.ts';

/**
 * Cloudflare's own rules for a DNS record, checked before anything is sent: by the single-domain DNS editor, by
 * the API before a change is sent, and by a fleet plan for each domain (what would fail lands under "Cannot
 * change" instead of failing in the run). One place, so the three agree.
 */
export type DnsRecordDraft = {
  type: string;
  name: string;
  content: string;
  proxied?: boolean;
  ttl?: number;
  priority?: number;
};
export type DnsRuleField = 'type' | 'name' | 'content' | 'proxied' | 'ttl' | 'priority';
export type DnsProblem = { field: DnsRuleField; message: string };

/** Types whose records need a priority (SRV's may also lead its content, as in a zone file). */
export const DNS_PRIORITY_TYPES: readonly string[] = ['MX', 'URI'];
/** Types whose content is a host name. */
export const DNS_HOST_TYPES: readonly string[] = ['CNAME', 'MX', 'NS', 'PTR'];
export const DNS_TXT_MAX = 2048;

export const DNS_RULE_MESSAGES = {
  notProxiable: (type: string) => `${type} records cannot be proxied; only A, AAAA and CNAME records can`,
  ipv4: 'Content of an A record must be an IPv4 address, such as 203.0.113.10',
  ipv6: 'Content of an AAAA record must be an IPv6 address, such as 2001:db8::10',
  host: (type: string) => `Content of a ${type} record must be a host name, such as mail.example.com`,
  selfTarget: (type: string) => `A ${type} record cannot point to its own name`,
  txtLong: `Content of a TXT record must be at most ${DNS_TXT_MAX} characters`,
  control: 'Content must not contain control characters (such as a line break or a tab)',
  priority: (type: string) => `Priority is required for ${type} records (0–65535)`,
  name: 'Name must be a host name: letters, digits, "-" and "_", labels separated by dots (a leading "*." is allowed)',
  outside: (zone: string) => `The name is outside the zone ${zone}`,
  ttl: `TTL must be 1 (Auto) or between 60 and ${DNS_TTL_MAX} seconds`,
  exists: 'The same record already exists',
  hostClash: 'An A, AAAA or CNAME record with that name already exists; a CNAME cannot share its name with them',
  nsClash: 'NS records cannot share their name with records of other types',
} as const;

/** C0 and C1 control characters and DEL: Cloudflare refuses them, and a zone file could not hold them on one line. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HOSTNAME_RE =
  /^(?=.{1,253}\.?$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?$/i;
const RECORD_NAME_RE = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

export const isIpv4 = (s: string) => IPV4_RE.test(s);
/** The URL parser knows IPv6 in the browser and in Node alike. */
export function isIpv6(s: string): boolean {
  if (!s.includes(':') || !/^[0-9a-f:.]+$/i.test(s)) return false;
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}
export const isHostName = (s: string) => HOSTNAME_RE.test(s);
export const isProxiableType = (type: string) => PROXIABLE_DNS_TYPES.includes(type.trim().toUpperCase());

/**
 * A record name as the zone holds it: "@" or the zone itself is the apex, a name ending in the zone stays,
 * anything else is relative to the zone. A name written absolute ("host.other.org.") outside the zone is null.
 */
export function dnsFullName(name: string, zone: string): string | null {
  const z = zone.trim().toLowerCase().replace(/\.$/, '');
  const raw = name.trim().toLowerCase();
  const n = raw.replace(/\.$/, '');
  if (n === '@' || n === z) return z;
  if (n.endsWith(`.${z}`)) return n;
  if (raw.endsWith('.')) return null;
  return `${n}.${z}`;
}

/** What Cloudflare would refuse in this one record (zone given: its name is checked against it). */
export function dnsRecordProblems(r: DnsRecordDraft, zone?: string): DnsProblem[] {
  const out: DnsProblem[] = [];
  const type = r.type.trim().toUpperCase();
  const content = r.content.trim();
  if (r.proxied && !isProxiableType(type))
    out.push({ field: 'proxied', message: DNS_RULE_MESSAGES.notProxiable(type) });
  let full: string | null = r.name.trim().toLowerCase().replace(/\.$/, '');
  if (zone) {
    full = dnsFullName(r.name, zone);
    if (full === null) out.push({ field: 'name', message: DNS_RULE_MESSAGES.outside(zone) });
  }
  if (full !== null && full !== '@' && (full.length > 255 || !RECORD_NAME_RE.test(full)))
    out.push({ field: 'name', message: DNS_RULE_MESSAGES.name });
  if (CONTROL_RE.test(r.content)) out.push({ field: 'content', message: DNS_RULE_MESSAGES.control });
  if (content) {
    if (type === 'A' && !isIpv4(content)) out.push({ field: 'content', message: DNS_RULE_MESSAGES.ipv4 });
    if (type === 'AAAA' && !isIpv6(content)) out.push({ field: 'content', message: DNS_RULE_MESSAGES.ipv6 });
    if (DNS_HOST_TYPES.includes(type)) {
      if (!isHostName(content)) out.push({ field: 'content', message: DNS_RULE_MESSAGES.host(type) });
      else if (full && content.toLowerCase().replace(/\.$/, '') === full)
        out.push({ field: 'content', message: DNS_RULE_MESSAGES.selfTarget(type) });
    }
    if (type === 'TXT' && content.length > DNS_TXT_MAX)
      out.push({ field: 'content', message: DNS_RULE_MESSAGES.txtLong });
    // Cloudflare takes these as `data`; content that does not split into its fields could not be sent.
    if (isDnsDataType(type)) {
      const parsed = dnsDataFromContent(type, content, r.priority);
      // SRV content without its priority is fine as content; the priority is what is missing. Content that leads
      // with its priority (as a zone file writes it) needs none apart.
      const srvPriority =
        type === 'SRV' && r.priority === undefined && !parsed.ok && dnsDataFromContent(type, content, 0).ok;
      if (srvPriority) out.push({ field: 'priority', message: DNS_RULE_MESSAGES.priority(type) });
      else if (!parsed.ok) out.push({ field: 'content', message: parsed.message });
    }
  }
  if (
    r.ttl !== undefined &&
    r.ttl !== DNS_TTL_AUTO &&
    !(Number.isInteger(r.ttl) && r.ttl >= 60 && r.ttl <= DNS_TTL_MAX)
  )
    out.push({ field: 'ttl', message: DNS_RULE_MESSAGES.ttl });
  if (DNS_PRIORITY_TYPES.includes(type) && r.priority === undefined)
    out.push({ field: 'priority', message: DNS_RULE_MESSAGES.priority(type) });
  return out;
}

/**
 * What Cloudflare would refuse when `r` (full name) joins the records of a zone: the same record twice, a CNAME
 * beside an A, AAAA or CNAME of the same name, NS beside other types. `ignoreId` is the record being replaced.
 */
export function dnsConflict(
  r: { type: string; name: string; content: string },
  records: readonly { id?: string; type: string; name: string; content: string }[],
  ignoreId?: string,
): string | null {
  const type = r.type.toUpperCase();
  const name = r.name.toLowerCase();
  const hostTypes = ['A', 'AAAA', 'CNAME'];
  for (const o of records) {
    if ((ignoreId && o.id === ignoreId) || o.name.toLowerCase() !== name) continue;
    const ot = o.type.toUpperCase();
    if (ot === type && o.content.toLowerCase() === r.content.toLowerCase()) return DNS_RULE_MESSAGES.exists;
    if (hostTypes.includes(type) && hostTypes.includes(ot) && (type === 'CNAME' || ot === 'CNAME'))
      return DNS_RULE_MESSAGES.hostClash;
    if ((type === 'NS') !== (ot === 'NS')) return DNS_RULE_MESSAGES.nsClash;
  }
  return null;
}
