/**
 * A guard against typos in Cloudflare rules-language expressions, not a parser: it checks that parentheses,
 * brackets, braces and quotes are balanced, that every dotted identifier is a known field, and that nothing
 * outside strings is a character the language does not use. Cloudflare remains the judge of the rest.
 */

/** Fields of the rules language (https://developers.cloudflare.com/ruleset-engine/rules-language/fields/). */
export const FIREWALL_FIELDS = [
  'http.cookie',
  'http.host',
  'http.referer',
  'http.user_agent',
  'http.x_forwarded_for',
  'http.request.full_uri',
  'http.request.method',
  'http.request.version',
  'http.request.uri',
  'http.request.uri.path',
  'http.request.uri.path.extension',
  'http.request.uri.query',
  'http.request.uri.args',
  'http.request.uri.args.names',
  'http.request.uri.args.values',
  'http.request.cookies',
  'http.request.headers',
  'http.request.headers.names',
  'http.request.headers.values',
  'http.request.headers.truncated',
  'http.request.accepted_languages',
  'http.request.timestamp.sec',
  'http.request.timestamp.msec',
  'http.request.body.raw',
  'http.request.body.truncated',
  'http.request.body.size',
  'http.request.body.mime',
  'http.request.body.form',
  'http.request.body.form.names',
  'http.request.body.form.values',
  'http.request.body.multipart',
  'http.request.body.multipart.names',
  'http.request.body.multipart.values',
  'http.request.body.multipart.content_types',
  'http.request.body.multipart.content_dispositions',
  'http.request.body.multipart.content_transfer_encodings',
  'http.request.body.multipart.filenames',
  'http.request.jwt.claims',
  'raw.http.request.full_uri',
  'raw.http.request.uri',
  'raw.http.request.uri.path',
  'raw.http.request.uri.path.extension',
  'raw.http.request.uri.query',
  'raw.http.request.uri.args',
  'raw.http.request.uri.args.names',
  'raw.http.request.uri.args.values',
  'http.response.code',
  'http.response.headers',
  'http.response.headers.names',
  'http.response.headers.values',
  'http.response.content_type.media_type',
  'ip.src',
  'ip.src.lat',
  'ip.src.lon',
  'ip.src.city',
  'ip.src.postal_code',
  'ip.src.metro_code',
  'ip.src.region',
  'ip.src.region_code',
  'ip.src.timezone.name',
  'ip.src.asnum',
  'ip.src.country',
  'ip.src.continent',
  'ip.src.is_in_european_union',
  'ip.src.subdivision_1_iso_code',
  'ip.src.subdivision_2_iso_code',
  'ip.geoip.asnum',
  'ip.geoip.continent',
  'ip.geoip.country',
  'ip.geoip.is_in_european_union',
  'ip.geoip.subdivision_1_iso_code',
  'ip.geoip.subdivision_2_iso_code',
  'cf.client.bot',
  'cf.threat_score',
  'cf.verified_bot_category',
  'cf.bot_management.score',
  'cf.bot_management.verified_bot',
  'cf.bot_management.static_resource',
  'cf.bot_management.corporate_proxy',
  'cf.bot_management.ja3_hash',
  'cf.bot_management.ja4',
  'cf.bot_management.js_detection.passed',
  'cf.bot_management.detection_ids',
  'cf.client_trust_score',
  'cf.edge.server_ip',
  'cf.edge.server_port',
  'cf.hostname.metadata',
  'cf.random_seed',
  'cf.ray_id',
  'cf.tls_cipher',
  'cf.tls_version',
  'cf.tls_client_auth.cert_present',
  'cf.tls_client_auth.cert_verified',
  'cf.tls_client_auth.cert_revoked',
  'cf.tls_client_auth.cert_issuer_dn',
  'cf.tls_client_auth.cert_subject_dn',
  'cf.tls_client_auth.cert_fingerprint_sha1',
  'cf.tls_client_auth.cert_fingerprint_sha256',
  'cf.tls_client_auth.cert_serial',
  'cf.tls_client_auth.cert_not_before',
  'cf.tls_client_auth.cert_not_after',
  'cf.waf.score',
  'cf.waf.score.sqli',
  'cf.waf.score.xss',
  'cf.waf.score.rce',
  'cf.waf.score.class',
  'cf.waf.auth_detected',
  'cf.waf.content_scan.has_obj',
  'cf.waf.content_scan.has_malicious_obj',
  'cf.waf.content_scan.num_obj',
  'cf.waf.content_scan.num_malicious_obj',
  'cf.waf.content_scan.has_failed',
  'cf.waf.content_scan.obj_sizes',
  'cf.waf.content_scan.obj_types',
  'cf.waf.content_scan.obj_results',
  'cf.waf.credential_check.password_leaked',
  'cf.waf.credential_check.username_and_password_leaked',
  'cf.waf.credential_check.username_leaked',
  'cf.waf.credential_check.username_password_similar',
  'cf.worker.upstream_zone',
  'cf.zone.name',
  'cf.zone.plan',
  'cf.metal.id',
  'cf.api_gateway.auth_id_present',
  'cf.api_gateway.request_violates_schema',
  'cf.api_gateway.fallthrough_detected',
  'cf.llm.prompt.detected',
  'ssl',
] as const;

/** Functions that may wrap fields. Names without a dot are not checked further. */
export const FIREWALL_FUNCTIONS = [
  'any',
  'all',
  'cidr',
  'cidr6',
  'concat',
  'decode_base64',
  'encode_base64',
  'ends_with',
  'has_key',
  'has_value',
  'is_timed_hmac_valid_v0',
  'join',
  'len',
  'lookup_json_integer',
  'lookup_json_string',
  'lower',
  'regex_replace',
  'remove_bytes',
  'remove_query_args',
  'split',
  'starts_with',
  'substring',
  'to_string',
  'upper',
  'url_decode',
  'uuidv4',
  'wildcard_replace',
] as const;

/** Word and symbol operators, and the literals true and false. */
export const FIREWALL_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'contains',
  'matches',
  'wildcard',
  'strict',
  'in',
  'and',
  'or',
  'not',
  'xor',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '~',
  '&&',
  '||',
  '!',
  '^^',
] as const;

export type ExpressionCheck = { ok: true } | { ok: false; message: string; position: number };

const FIELDS = new Set<string>(FIREWALL_FIELDS);
const SYMBOLS = ['==', '!=', '<=', '>=', '&&', '||', '^^', '<', '>', '~', '!', ','];
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const NAMES: Record<string, string> = { '(': 'parenthesis', '[': 'bracket', '{': 'brace' };

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = next;
    }
  }
  return row[b.length]!;
}

/** The nearest known field, when one is close enough to be the intended one. */
export function suggestField(name: string): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const f of FIREWALL_FIELDS) {
    const d = distance(name.toLowerCase(), f);
    if (d < bestD) [best, bestD] = [f, d];
  }
  return bestD <= Math.max(2, Math.floor(name.length / 5)) ? best : undefined;
}

const fail = (message: string, index: number): ExpressionCheck => ({ ok: false, message, position: index + 1 });

/** Checks one expression. Positions in messages count characters from 1. */
export function checkFirewallExpression(expression: string): ExpressionCheck {
  const s = expression;
  const open: { ch: string; at: number }[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    // Raw strings: r"…" or r#"…"#, with any number of #.
    const raw = /^r(#*)"/.exec(s.slice(i, i + 64));
    if (raw) {
      const end = `"${raw[1]}`;
      const close = s.indexOf(end, i + raw[0].length);
      if (close < 0) return fail(`Unclosed quote: the raw string starting at position ${i + 1} is never closed`, i);
      i = close + end.length;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) return fail(`Unclosed quote: the string starting at position ${i + 1} is never closed`, i);
      i = j + 1;
      continue;
    }
    if (ch === "'") return fail(`Strings use double quotes: unexpected ' at position ${i + 1}`, i);
    if (ch === '(' || ch === '[' || ch === '{') {
      open.push({ ch, at: i });
      i++;
      continue;
    }
    if (ch in CLOSERS) {
      const want = CLOSERS[ch]!;
      const top = open.pop();
      if (!top) return fail(`Unbalanced ${NAMES[want]}: "${ch}" at position ${i + 1} has no opening "${want}"`, i);
      if (top.ch !== want) {
        return fail(
          `Unbalanced ${NAMES[top.ch]}: "${top.ch}" at position ${top.at + 1} is closed by "${ch}" at position ${i + 1}`,
          i,
        );
      }
      i++;
      continue;
    }
    // IP addresses, CIDR ranges and numbers (including IPv6 such as 2001:db8::/32 or fe80::1).
    const ip = /^(?:[0-9a-fA-F]*:[0-9a-fA-F:.]*(?:\/\d+)?|\d[\d.]*(?:\/\d+)?)(?![\w.])/.exec(s.slice(i));
    if (ip && ip[0]) {
      i += ip[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(s.slice(i));
    if (word) {
      const name = word[0];
      const after = s.slice(i + name.length).trimStart();
      if (name.includes('.') && !after.startsWith('(') && !FIELDS.has(name)) {
        const near = suggestField(name);
        return fail(`Unknown field "${name}"${near ? `. Did you mean "${near}"?` : ''}`, i);
      }
      i += name.length;
      continue;
    }
    // Named lists: $list_name.
    const list = /^\$[A-Za-z0-9_]+/.exec(s.slice(i));
    if (list) {
      i += list[0].length;
      continue;
    }
    if (ch === '*' && open.at(-1)?.ch === '[') {
      i++;
      continue;
    }
    const sym = SYMBOLS.find((x) => s.startsWith(x, i));
    if (sym) {
      i += sym.length;
      continue;
    }
    if (ch === '=' || ch === '&' || ch === '|' || ch === '^') {
      const hint = { '=': '==', '&': '&&', '|': '||', '^': '^^' }[ch];
      return fail(`Unexpected "${ch}" at position ${i + 1}: did you mean "${hint}"?`, i);
    }
    return fail(`Unexpected character "${ch}" at position ${i + 1}`, i);
  }
  const left = open.pop();
  if (left)
    return fail(`Unbalanced ${NAMES[left.ch]}: "${left.ch}" at position ${left.at + 1} is never closed`, left.at);
  return { ok: true };
}
