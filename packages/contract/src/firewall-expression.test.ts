import { describe, expect, it } from 'vitest';
import { checkFirewallExpression, suggestField } from './firewall-expression.ts';
import { FirewallRuleInputSchema, toPriority } from './firewall-rules.ts';

const ok = (e: string) => expect(checkFirewallExpression(e), e).toEqual({ ok: true });
const bad = (e: string, message: string | RegExp) => {
  const r = checkFirewallExpression(e);
  expect(r.ok, e).toBe(false);
  if (!r.ok) expect(r.message).toMatch(message);
};

describe('checkFirewallExpression', () => {
  it('accepts the empty expression and typical rules', () => {
    ok('');
    ok('(http.request.uri.path contains "/wp-login.php")');
    ok('(ip.geoip.country in {"CN" "RU"}) or (cf.threat_score gt 14)');
    ok('(http.request.method eq "POST" and not cf.client.bot)');
    ok('http.host == "example.com" && http.request.uri.query ~ "^id=[0-9]+$"');
    ok('(cf.bot_management.score lt 30 and not cf.verified_bot_category in {"Search Engine Crawler"})');
    ok('ip.src in {192.0.2.0/24 203.0.113.7 2001:db8::/32 fe80::1}');
    ok('ip.src in $office_ips');
    ok('http.request.headers["x-forwarded-for"][0] eq "1.2.3.4"');
    ok('any(http.request.headers.values[*] contains "curl")');
    ok('lower(http.user_agent) contains "bot" xor ssl');
    ok('http.request.full_uri strict wildcard "https://*.example.com/*"');
    ok('http.request.uri.path matches r"^/a\\d+$" or http.referer eq r#"quote " inside"#');
    ok('http.cookie contains "a\\"b(" and ip.geoip.asnum eq 13335');
    ok('http.request.version in {"HTTP/1.0" "HTTP/1.1"} and ip.geoip.continent ne "EU"');
  });

  it('refuses unbalanced parentheses, brackets and braces', () => {
    bad('(http.host eq "a"', /Unbalanced parenthesis: "\(" at position 1 is never closed/);
    bad('http.host eq "a")', /Unbalanced parenthesis: "\)" at position 17 has no opening "\("/);
    bad('ip.src in {1.1.1.1', /Unbalanced brace/);
    bad('(ip.src in {1.1.1.1)}', /closed by "\)"/);
    bad('http.request.headers["a"', /Unbalanced bracket/);
  });

  it('refuses unclosed quotes, and single quotes', () => {
    bad('http.host eq "example.com', /Unclosed quote: the string starting at position 14/);
    bad('http.host eq "a\\"', /Unclosed quote/);
    bad('http.host eq r#"abc"', /Unclosed quote: the raw string/);
    bad("http.host eq 'example.com'", /Strings use double quotes/);
  });

  it('refuses unknown dotted field names, suggesting the nearest', () => {
    bad(
      'http.requets.uri.path eq "/"',
      /Unknown field "http.requets.uri.path". Did you mean "http.request.uri.path"\?/,
    );
    bad('ip.scr eq 1.1.1.1', /Did you mean "ip.src"/);
    bad('foo.bar eq "x"', /^Unknown field "foo.bar"$/);
    bad('(http.host eq "a") and (cf.threat.score gt 5)', /Unknown field "cf.threat.score"/);
  });

  it('refuses characters the language does not use, with a hint for single symbols', () => {
    bad('http.host = "a"', /Unexpected "=" at position 11: did you mean "=="\?/);
    bad('ssl & ssl', /did you mean "&&"/);
    bad('http.host eq "a";', /Unexpected character ";" at position 17/);
  });

  it('does not look inside strings', () => {
    ok('http.request.uri.path eq "(((" and http.referer eq "no.such.field"');
  });

  it('suggests only near names', () => {
    expect(suggestField('http.hots')).toBe('http.host');
    expect(suggestField('completely.different.thing')).toBeUndefined();
  });
});

describe('firewall rule input', () => {
  it('puts an expression error on the expression field', () => {
    const r = FirewallRuleInputSchema.safeParse({
      name: 'x',
      action: 'block',
      expression: '(http.host eq "a"',
      defaultPriority: 1,
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['expression']);
  });

  it('converts a form priority to a number, 0 when invalid', () => {
    expect(toPriority('12')).toBe(12);
    expect(toPriority(' 7 ')).toBe(7);
    expect(toPriority('abc')).toBe(0);
    expect(toPriority('')).toBe(0);
    expect(toPriority(undefined)).toBe(0);
    expect(toPriority(3.9)).toBe(3);
  });
});
